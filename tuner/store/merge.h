// Merging one results database into another: `tune import other.db`, and the ranks of an MPI run
// (rank 0, the only writer, merges what each rank measured into the run's database).
//
// What is merged: runs (a run already present, by its identity, is not copied again),
// configurations (by kernel, space and canonical params), measurements (one per configuration,
// device and size: the incoming one replaces a stored one only when it was measured later, so a
// merge of the same file twice, or of an older copy, changes nothing), ceilings, decisions (the
// later of two at the same kernel, device and size) and, when asked, cached binaries (by key).
// Timestamps later than now are refused (check_not_future). Flags are a
// property of the data: the caller refreshes them (query::refresh_flags) for the merged kernels
// and devices. The merge is one transaction: all of it lands, or nothing.
#pragma once
#include <cstdint>
#include <functional>
#include <map>
#include <set>
#include <string>
#include <utility>

#include "store/store.h"

namespace tune::store {

struct MergeOptions {
  // The run in `into` that an incoming run's rows belong to. Empty: the run is copied (or found,
  // when a run with the same identity is there already).
  std::function<std::int64_t(const RunInfo& incoming)> map_run{};
  // Whether cached compiled binaries are copied. Only from a file this process's own job wrote
  // (the ranks of an MPI run): a binary from elsewhere is bytes tune would load onto the GPU and
  // run unverified (its key names the source, not the bytes), so `tune import` drops them and the
  // next run compiles its own.
  bool binaries = false;
};

struct MergeCounts {
  std::size_t runs = 0;          // runs copied
  std::size_t measurements = 0;  // measurements stored (new, or later than the stored one)
  std::size_t kept = 0;          // incoming measurements not stored: the stored one is as recent
  std::size_t ceilings = 0, decisions = 0, binaries = 0;
  std::map<std::int64_t, std::int64_t> run_ids;                  // incoming run id -> its run in `into`
  std::set<std::pair<std::string, std::string>> kernel_devices;  // (kernel, device) with measurements
};

// Merges every row of `from` into `into` (see above). `from` is only read. Throws InputError when
// `into` is the same file as `from`, or when `from` holds rows tune does not write; `into` is then
// unchanged.
MergeCounts merge(Store& into, Store& from, const MergeOptions& options = {});

}  // namespace tune::store

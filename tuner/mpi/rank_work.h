// Internal to tuner/mpi: a rank's side of a GPU sweep (ranks_gpu.cpp has rank 0's). Each item is
// measured by a supervised worker process (run/isolate.h), `tune run` on the item's sizes, into a
// scratch database copied from the rank's seed database, which holds every cubin rank 0 has sent.
// An item may be a part of a size split over the ranks (tuning::Part): a share, `tune run --share
// I/K`, or the decision, `tune run --decide-only` over the shares' databases merged into its own.
#pragma once
#include <string>

#include "mpi/bytes.h"
#include "mpi/ranks_common.h"
#include "run/device.h"
#include "store/store.h"
#include "tuning/options.h"

namespace tune::mpi::detail {

// A cached binary in a message, and back.
void write_binary(Writer& w, const store::CachedBinary& b);
store::CachedBinary read_binary(Reader& in);

// A rank's side: its GPU, its scratch directory and the cubins it has been sent.
class RankWork {
 public:
  RankWork(const tuning::Options& o, const run::DeviceIdentity& dev, const Scratch& scratch)
      : o_(o),
        dev_(dev),
        scratch_(scratch),
        seed_path_(scratch.file("seed.db")),
        seed_(store::Store::open(seed_path_, store::Store::Mode::read_write)) {}

  // One item: the sizes, the part, the cubins and (a decision) the shares' databases in `payload`;
  // returns the item's database (less the cubins this rank was sent), the worker's --json table and
  // its wall time.
  std::string operator()(const std::string& payload);

 private:
  const tuning::Options& o_;
  const run::DeviceIdentity& dev_;
  const Scratch& scratch_;
  std::string seed_path_;
  store::Store seed_;
};

}  // namespace tune::mpi::detail

// Internal to interop: the result files of tune::runtime's online tuning (tuner/runtime/online.h,
// format "tune-online", version 1), read for `tune import`:
//   {"format": "tune-online", "version": 1, "kernel_name", "space_hash" (32 hex digits),
//    "device_name", "compute_capability": [major, minor], "problem_size": [x, y, ...],
//    "parameters": [names], "tune_params": {name: [the spec's values]},
//    "rule": {"launches", "min_samples", "finalists", "batch", "held", "placements",
//    "inputs_copied", "statistic": "min" or "median", "pick_margin"}, "winner": index,
//    "extra_ms", "cut_wait_ms",
//    "candidates": [{"values": [one per parameter], "samples_ms": [...], "min_ms", "median_ms"}]}
// Each candidate with samples becomes a measurement (samples_ms its samples, per launch; the
// rule's statistic of them its objective) of the file's kernel, device, size and space hash, as a
// Kernel Tuner cache entry would; one without (its events failed) is skipped, and a winner
// without samples is refused.
#pragma once
#include <filesystem>
#include <optional>
#include <string>

#include "interop/interop.h"

namespace tune::interop::detail {

struct OnlineFile {
  CacheFile cache;         // header and entries as a Kernel Tuner cache holds them
  std::string space_hash;  // the spec's space hash the runtime recorded
};

// Bounds: 16 MiB, 1,000 candidates, 100,000 samples each, 1,000 parameters, JSON nested 8 deep.
// nullopt when the file does not start as a tune-online file; throws InputError naming the file
// and the field when it does but breaks the format or a bound.
std::optional<OnlineFile> read_online(const std::filesystem::path& path);

}  // namespace tune::interop::detail

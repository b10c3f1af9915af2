// Questions asked of stored results: the best configuration per (device, problem size), and for a
// size never measured, the nearest measured one (said so).
#pragma once
#include <optional>
#include <string>
#include <vector>

#include "store/store.h"

namespace tune::query {

struct Best {
  std::string kernel, device;
  std::string size;           // the size asked for (or measured, when listing)
  std::string measured_size;  // the size the answer was measured at
  bool nearest = false;       // true when size was never measured and measured_size stands in
  std::string params;         // canonical JSON: the configuration to use (verdict.h)
  double time_ms = 0;         // its objective (the statistic below)
  double half_width_ms = 0;   // of its 95% interval
  std::optional<double> gbps, gflops;
  std::int64_t config_id = 0, run_id = 0;
  std::size_t candidates = 0;     // ok measurements at that (device, size)
  std::vector<std::string> tied;  // the other configurations tied with it (canonical JSON)
  std::string winner;             // the fastest measured, when a tie-break chose another; else ""
  double noise = 0;               // the winner's relative 95% half-width at that size
  bool remeasured = false;        // decided by a GPU run's interleaved re-measurement
  std::string statistic = "mean";
};

struct BestQuery {
  std::optional<std::string> kernel;  // required unless the database holds one kernel
  std::optional<std::string> device;  // every device when absent
  std::optional<std::string> size;    // every measured size when absent
};

// The configuration to use per device and size (query/verdict.h: the lowest objective, ties
// broken towards the neighbouring sizes' choice), ordered by device, then size. Throws InputError
// when the kernel is unknown or not given and ambiguous.
std::vector<Best> best(store::Store& db, const BestQuery& q);

// The measured size closest to `size` (in elements, on a log scale; ties go to the smaller).
std::string nearest_size(const std::vector<std::string>& measured, const std::string& size);

// Resolves --kernel: the given one if stored, the only one if not given. Throws InputError.
std::string resolve_kernel(store::Store& db, const std::optional<std::string>& kernel);

}  // namespace tune::query

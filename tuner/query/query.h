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
  std::string params;         // canonical JSON
  double median_ms = 0;
  std::optional<double> gbps, gflops;
  std::int64_t config_id = 0, run_id = 0;
  std::size_t candidates = 0;  // ok measurements at that (device, size)
};

struct BestQuery {
  std::optional<std::string> kernel;  // required unless the database holds one kernel
  std::optional<std::string> device;  // every device when absent
  std::optional<std::string> size;    // every measured size when absent
};

// Best (lowest median time among verified, ok measurements) per device and size, ordered by
// device, then size. Throws InputError when the kernel is unknown or not given and ambiguous.
std::vector<Best> best(store::Store& db, const BestQuery& q);

// The measured size closest to `size` (in elements, on a log scale; ties go to the smaller).
std::string nearest_size(const std::vector<std::string>& measured, const std::string& size);

// Resolves --kernel: the given one if stored, the only one if not given. Throws InputError.
std::string resolve_kernel(store::Store& db, const std::optional<std::string>& kernel);

}  // namespace tune::query

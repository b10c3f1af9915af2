// A cache laid over a constructed space: for every valid configuration, the recorded entry (or
// none), its objective (nullopt for a recorded failure) and its replay cost (compile +
// verification + benchmark time, Kernel Tuner's simulated clock). Built once per replay; the
// lookups that follow are plain vector indexing.
#pragma once
#include <optional>
#include <vector>

#include "decision/objective.h"
#include "interop/interop.h"
#include "space/space.h"

namespace tune::interop {

struct Recorded {
  std::vector<const CacheEntry*> entry;          // nullptr: the cache lacks this configuration
  std::vector<std::optional<double>> objective;  // the entry's objective; nullopt: recorded failure
  std::vector<double> cost_ms;                   // compile + verification + benchmark time
  // The entry as import maps it (detail::from_kt_entry), built here anyway: what a replay stores.
  std::vector<store::Measurement> measurement;
  std::size_t missing = 0;          // configurations without an entry
  std::optional<std::size_t> best;  // the best successful configuration
};

// Throws InputError when the cache's parameters do not match the space's, or an entry cannot be
// read (naming the file and key), or, for an objective that needs energy, a successful entry has
// no nvml_energy (Kernel Tuner's NVMLObserver). `cache` must outlive the result. The objective:
// the entry's `time`, its `nvml_energy` (J), or their product (EDP).
Recorded recorded_results(const CacheFile& cache, const space::Space& space,
                          decision::Objective objective = decision::Objective::time);

// Kernel Tuner's cache key of a configuration: str() of each value, joined by ",".
std::string cache_key(const space::Space& space, std::size_t config);

}  // namespace tune::interop

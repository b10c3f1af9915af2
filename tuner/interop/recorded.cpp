#include "interop/recorded.h"

#include <unordered_map>

#include "common/error.h"
#include "interop/entry.h"

namespace tune::interop {

std::string cache_key(const space::Space& space, std::size_t config) {
  std::string key;
  for (std::size_t p = 0; p < space.num_params(); ++p) {
    if (p) key += ',';
    key += space.value(config, p).str();
  }
  return key;
}

Recorded recorded_results(const CacheFile& cache, const space::Space& space, decision::Objective objective) {
  const auto names = cache.param_names();
  if (names != space.names())
    throw InputError(cache.path.string() + ": its parameters (tune_params_keys) differ from the space's");
  std::unordered_map<std::string_view, const CacheEntry*> by_key;
  by_key.reserve(cache.entries.size());
  for (const auto& e : cache.entries) by_key[e.key] = &e;

  Recorded r;
  const std::size_t n = space.size();
  r.entry.assign(n, nullptr);
  r.objective.assign(n, std::nullopt);
  r.cost_ms.assign(n, 0.0);
  r.measurement.resize(n);
  double best = 0;
  for (std::size_t c = 0; c < n; ++c) {
    const std::string key = cache_key(space, c);
    auto it = by_key.find(key);
    if (it == by_key.end()) {
      ++r.missing;
      continue;
    }
    r.entry[c] = it->second;
    detail::Imported imp;
    try {
      imp = detail::from_kt_entry(key, it->second->value, names);
    } catch (const InputError& e) {
      throw InputError(cache.path.string() + ": entry \"" + key + "\": " + e.what());
    }
    store::reject_invalid_times(imp.m);  // a negative or absurd recorded time is never the best
    const store::Measurement& m = imp.m;
    r.cost_ms[c] = m.compile_ms.value_or(0) + m.verification_ms.value_or(0) + m.benchmark_ms.value_or(0);
    if (m.status == store::MeasurementStatus::ok && m.objective) {
      std::optional<decision::Estimate> energy;
      if (m.energy_j) energy = decision::Estimate{*m.energy_j, 0, 1};
      const auto v = decision::objective_estimate(objective, {{*m.objective, 0, 1}, energy});
      if (!v)
        throw InputError(cache.path.string() + ": entry \"" + key + "\" has no nvml_energy: the objective " +
                         std::string(decision::to_string(objective)) +
                         " needs a cache measured with energy (Kernel Tuner's NVMLObserver, or tune export of an "
                         "energy run)");
      r.objective[c] = v->value;
      if (!r.best || v->value < best) {
        r.best = c;
        best = v->value;
      }
    }
    r.measurement[c] = std::move(imp.m);
  }
  return r;
}

}  // namespace tune::interop

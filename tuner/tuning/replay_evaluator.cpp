// The replay's Evaluator: Kernel Tuner's simulation mode (kernel_tuner/runners/simulation.py) over
// interop::recorded_results. Per evaluation on the search's path: a vector lookup, the simulated
// clock, and the recorded measurement (mapped once by recorded_results) prepared for the store
// (samples as JSON, about 1.5 µs) and moved to the writer.
#include "common/error.h"
#include "tuning/replay_internal.h"

namespace tune::tuning::detail {

ReplayEvaluator::ReplayEvaluator(ReplayWriter& writer, const space::Space& space, const interop::CacheFile& cache,
                                 interop::Recorded& recorded)
    : writer_(writer), space_(space), cache_(cache), recorded_(recorded) {}

std::optional<double> ReplayEvaluator::evaluate(std::size_t config) {
  const auto entered = Clock::now();
  const double strategy_ms = std::chrono::duration<double, std::milli>(entered - last_return_).count();
  strategy_s_ += strategy_ms / 1000.0;
  if (recorded_.entry.at(config) == nullptr)
    throw InputError(cache_.path.string() + ": the valid configuration " + space_.params_json(config) + " (key \"" +
                     interop::cache_key(space_, config) + "\") is missing from the cache");
  clock_ms_ += recorded_.cost_ms[config];

  // Context calls this once per configuration: its recorded measurement is not needed again.
  store::Measurement m = std::move(recorded_.measurement[config]);
  m.replayed = true;
  m.eval_order = static_cast<std::int64_t>(evaluated_.size());  // 0, 1, 2, ... (schema)
  m.simulated_time_ms = clock_ms_;
  m.strategy_time_ms = strategy_ms;
  writer_.push(config, store::prepare(std::move(m)));  // here, so that the writer only writes

  evaluated_.push_back(config);
  objectives_.push_back(recorded_.objective[config]);
  last_return_ = Clock::now();
  return recorded_.objective[config];
}

}  // namespace tune::tuning::detail

// The replay's Evaluator: Kernel Tuner's simulation mode (kernel_tuner/runners/simulation.py) over
// interop::recorded_results. Per evaluation on the search's path: a vector lookup, the simulated
// clock, and the recorded measurement (mapped once by recorded_results) prepared for the store
// (samples as JSON, about 1.5 µs) and moved to the writer.
#include "common/error.h"
#include "tuning/replay_internal.h"

namespace tune::tuning::detail {

ReplayEvaluator::ReplayEvaluator(ReplayWriter& writer, const space::Space& space, const interop::CacheFile& cache,
                                 interop::Recorded& recorded, std::size_t lanes)
    : writer_(writer), space_(space), cache_(cache), recorded_(recorded), lanes_(lanes < 1 ? 1 : lanes) {}

double ReplayEvaluator::strategy_ms() {
  const double ms = std::chrono::duration<double, std::milli>(Clock::now() - last_return_).count();
  strategy_s_ += ms / 1000.0;
  return ms;
}

void ReplayEvaluator::check(std::size_t config) const {
  if (recorded_.entry.at(config) == nullptr)
    throw InputError(cache_.path.string() + ": the valid configuration " + space_.params_json(config) + " (key \"" +
                     interop::cache_key(space_, config) + "\") is missing from the cache");
}

std::optional<double> ReplayEvaluator::take(std::size_t config, double finished_ms, double strategy_ms) {
  // Context calls this once per configuration: its recorded measurement is not needed again.
  store::Measurement m = std::move(recorded_.measurement[config]);
  m.replayed = true;
  m.eval_order = static_cast<std::int64_t>(evaluated_.size());  // 0, 1, 2, ... (schema)
  m.simulated_time_ms = finished_ms;
  m.strategy_time_ms = strategy_ms;
  writer_.push(config, store::prepare(std::move(m)));  // here, so that the writer only writes
  evaluated_.push_back(config);
  objectives_.push_back(recorded_.objective[config]);
  return recorded_.objective[config];
}

std::optional<double> ReplayEvaluator::evaluate(std::size_t config) {
  const double ms = strategy_ms();
  check(config);
  clock_ms_ += recorded_.cost_ms[config];
  const auto r = take(config, clock_ms_, ms);
  last_return_ = Clock::now();
  return r;
}

std::vector<std::optional<double>> ReplayEvaluator::evaluate_batch(const std::vector<std::size_t>& configs) {
  if (lanes_ <= 1) return Evaluator::evaluate_batch(configs);
  double ms = strategy_ms();
  // each configuration to the simulated GPU free first; the batch ends with its last
  std::vector<double> costs;
  for (std::size_t c : configs) {
    check(c);
    costs.push_back(recorded_.cost_ms[c]);
  }
  const search::LaneSchedule plan = search::schedule_lanes(costs, lanes_);
  std::vector<std::optional<double>> out;
  out.reserve(configs.size());
  for (std::size_t i = 0; i < configs.size(); ++i) {
    out.push_back(take(configs[i], clock_ms_ + plan.finish[i], ms));
    ms = 0;  // the strategy's time counts once per batch
  }
  clock_ms_ += plan.makespan;
  last_return_ = Clock::now();
  return out;
}

}  // namespace tune::tuning::detail

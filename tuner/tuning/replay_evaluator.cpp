// The replay's Evaluator (Kernel Tuner's simulation mode, kernel_tuner/runners/simulation.py) and
// the batched writer behind it. Per evaluation: one vector lookup, the cache entry mapped to a
// Measurement, a remembered configuration id and one prepared INSERT inside a batch transaction.
#include <spdlog/spdlog.h>

#include "common/error.h"
#include "interop/entry.h"
#include "tuning/replay_internal.h"

namespace tune::tuning::detail {

// ---- ReplayWriter -----------------------------------------------------------------------------

std::int64_t ReplayWriter::config_id(const std::string& kernel, const std::string& space_hash,
                                     const space::Space& space, std::size_t config) {
  auto& ids = ids_[{kernel, space_hash}];
  if (ids.empty()) ids.assign(space.size(), 0);
  std::int64_t& id = ids[config];
  if (id == 0) {
    if (!batch_) open();  // a new configuration row lands with the batch that uses it
    // Space::params_json is canonical already: compact nlohmann dumps in declaration order.
    id = db_.upsert_configuration_canonical(kernel, space_hash, space.params_json(config));
  }
  return id;
}

void ReplayWriter::open() {
  batch_.emplace(db_.batch());
  pending_ = 0;
  opened_ = Clock::now();
  now_ = store::utc_now();
}

const std::string& ReplayWriter::now() {
  if (!batch_) open();
  return now_;
}

void ReplayWriter::record(const store::Measurement& m) {
  if (!batch_) open();
  db_.record(m);
  ++pending_;
  if (pending_ >= kBatchEvaluations ||
      std::chrono::duration<double>(Clock::now() - opened_).count() >= kBatchSeconds)
    commit();
}

void ReplayWriter::commit() {
  if (!batch_) return;
  batch_->commit();
  batch_.reset();
}

// ---- ReplayEvaluator --------------------------------------------------------------------------

ReplayEvaluator::ReplayEvaluator(ReplayWriter& writer, const space::Space& space, const interop::CacheFile& cache,
                                 const interop::Recorded& recorded, ReplayTarget target)
    : writer_(writer), space_(space), cache_(cache), recorded_(recorded), target_(std::move(target)),
      names_(cache.param_names()) {}

std::optional<double> ReplayEvaluator::evaluate(std::size_t config) {
  const auto entered = Clock::now();
  const double strategy_ms = std::chrono::duration<double, std::milli>(entered - last_return_).count();
  strategy_s_ += strategy_ms / 1000.0;
  const interop::CacheEntry* entry = recorded_.entry.at(config);
  if (entry == nullptr)
    throw InputError(cache_.path.string() + ": the valid configuration " + space_.params_json(config) + " (key \"" +
                     interop::cache_key(space_, config) + "\") is missing from the cache");
  clock_ms_ += recorded_.cost_ms[config];

  // recorded_results() mapped this entry already without error, so this cannot throw.
  auto imported = interop::detail::from_kt_entry(entry->key, entry->value, names_);
  store::Measurement& m = imported.m;
  m.config_id = writer_.config_id(target_.kernel, target_.space_hash, space_, config);
  m.run_id = target_.run_id;
  m.device = target_.device;
  m.size = target_.size;
  m.replayed = true;
  m.eval_order = static_cast<std::int64_t>(evaluated_.size());  // 0, 1, 2, ... (schema)
  m.simulated_time_ms = clock_ms_;
  m.strategy_time_ms = strategy_ms;
  m.measured_at = writer_.now();
  writer_.record(m);

  evaluated_.push_back(config);
  objectives_.push_back(recorded_.objective[config]);
  last_return_ = Clock::now();
  return recorded_.objective[config];
}

}  // namespace tune::tuning::detail

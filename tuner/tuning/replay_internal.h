// Internal to the replay: the Evaluator over a recorded cache and the writer that stores its
// evaluations in batches.
#pragma once
#include <chrono>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "interop/interop.h"
#include "interop/recorded.h"
#include "search/search.h"
#include "space/space.h"
#include "store/store.h"

namespace tune::tuning::detail {

using Clock = std::chrono::steady_clock;

// Stores replayed evaluations. Crash safety is per batch, not per evaluation: a replay is
// reproducible (same caches, strategy, options and seed give the same evaluations), so a replay
// killed midway loses at most the last uncommitted batch and is simply run again. A batch
// commits after kBatchEvaluations evaluations or kBatchSeconds of wall time, whichever comes
// first, and at the end of every size (commit()).
class ReplayWriter {
 public:
  static constexpr std::size_t kBatchEvaluations = 4096;
  static constexpr double kBatchSeconds = 0.2;

  explicit ReplayWriter(store::Store& db) : db_(db) {}
  ReplayWriter(const ReplayWriter&) = delete;
  ReplayWriter& operator=(const ReplayWriter&) = delete;
  // Destroyed without commit() (an exception): the open batch rolls back.

  store::Store& db() { return db_; }
  // The configuration's id, inserted when new; remembered for the whole replay (every size).
  std::int64_t config_id(const std::string& kernel, const std::string& space_hash, const space::Space& space,
                         std::size_t config);
  // Stores `m` in the open batch (opening one when needed); commits when the batch is full.
  void record(const store::Measurement& m);
  // measured_at of replayed evaluations: the time the current batch opened.
  const std::string& now();
  void commit();  // commits the open batch, if any
  // Rolls the open batch back (and forgets configuration ids, which may have been in it).
  void rollback() {
    batch_.reset();
    ids_.clear();
  }

 private:
  void open();
  store::Store& db_;
  std::optional<store::Store::Batch> batch_;
  std::size_t pending_ = 0;
  Clock::time_point opened_{};
  std::string now_;
  std::map<std::pair<std::string, std::string>, std::vector<std::int64_t>> ids_;  // 0: not yet known
};

// What every stored evaluation of one size shares.
struct ReplayTarget {
  std::string kernel, space_hash, device;
  store::ProblemSize size;
  std::int64_t run_id = 0;
};

// An Evaluator that looks configurations up in a recorded cache: a first visit advances the
// simulated clock by the recorded compile + verification + benchmark time (Context makes a revisit
// free), stores the evaluation and returns the recorded objective. A valid configuration missing
// from the cache throws InputError naming it.
class ReplayEvaluator final : public search::Evaluator {
 public:
  ReplayEvaluator(ReplayWriter& writer, const space::Space& space, const interop::CacheFile& cache,
                  const interop::Recorded& recorded, ReplayTarget target);

  std::optional<double> evaluate(std::size_t config) override;
  double elapsed_s() const override { return clock_ms_ / 1000.0; }

  void start() { last_return_ = Clock::now(); }  // the strategy's time counts from here
  double simulated_ms() const { return clock_ms_; }
  double strategy_s() const { return strategy_s_; }
  const std::vector<std::size_t>& evaluated() const { return evaluated_; }
  const std::vector<std::optional<double>>& objectives() const { return objectives_; }

 private:
  ReplayWriter& writer_;
  const space::Space& space_;
  const interop::CacheFile& cache_;
  const interop::Recorded& recorded_;
  ReplayTarget target_;
  std::vector<std::string> names_;
  double clock_ms_ = 0;
  double strategy_s_ = 0;
  Clock::time_point last_return_ = Clock::now();
  std::vector<std::size_t> evaluated_;
  std::vector<std::optional<double>> objectives_;
};

}  // namespace tune::tuning::detail

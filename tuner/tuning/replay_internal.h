// Internal to the replay: the Evaluator over a recorded cache and the writer that stores its
// evaluations on a thread of its own, in batches.
#pragma once
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <exception>
#include <map>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "interop/interop.h"
#include "interop/recorded.h"
#include "search/search.h"
#include "space/space.h"
#include "store/checkpointer.h"
#include "store/store.h"

namespace tune::tuning::detail {

using Clock = std::chrono::steady_clock;

// CPU time of the calling thread (seconds).
double thread_cpu_s();

// What every stored evaluation of one size shares.
struct ReplayTarget {
  std::string kernel, space_hash, device;
  sizes::Size size;
  std::int64_t run_id = 0;
  const space::Space* space = nullptr;
};

// Stores replayed evaluations on its own thread, so that SQLite's cost per row (configuration and
// measurement rows, about 6.5 µs of CPU on the 2-core development machine) is not on the search's
// path: push() queues and returns. Copying the WAL into the database runs on a third thread
// (store::Checkpointer), so a replay keeps up to three cores busy, two of them lightly.
//
// Crash safety is per batch, not per evaluation: a replay is reproducible (same caches, strategy,
// options and seed give the same evaluations), so a replay killed midway loses at most the last
// uncommitted batch and is simply run again. A batch commits after kBatchEvaluations evaluations
// or kBatchSeconds of wall time, whichever comes first, and at every sync() (end of a size).
//
// Threads: the Store is used by the writer's thread between push() and sync(); the calling thread
// may use db() only after sync() (or rollback()) and before the next push().
class ReplayWriter {
 public:
  static constexpr std::size_t kBatchEvaluations = 4096;
  static constexpr double kBatchSeconds = 0.2;
  static constexpr std::size_t kQueueLimit = 16384;  // push() waits while the writer is this far behind

  explicit ReplayWriter(store::Store& db);
  ~ReplayWriter();  // stops the thread; what is queued or uncommitted is dropped (rolled back)
  ReplayWriter(const ReplayWriter&) = delete;
  ReplayWriter& operator=(const ReplayWriter&) = delete;

  store::Store& db() { return db_; }
  // What the following evaluations share; call while idle (after sync()).
  void target(ReplayTarget t);
  // Queues one evaluation of `config`: m as recorded, with eval_order, simulated and strategy
  // times set, and prepared (store::prepare) on the calling thread, so that the writer's thread
  // does only what needs the database; the writer fills the configuration id, run, device, size
  // and measured_at. Rethrows an error of the writer's thread.
  void push(std::size_t config, store::PreparedMeasurement m);
  // Waits until everything queued is stored and committed. Rethrows an error of the writer's.
  void sync();
  // Drops what is queued and rolls the open batch back; clears a writer error.
  void rollback();
  // CPU time the writer's thread has used so far (seconds).
  double cpu_s() const;

 private:
  struct Item {
    std::size_t config;
    store::PreparedMeasurement m;
  };
  void work();  // the writer's thread
  void write(Item& item);
  void commit();

  store::Store& db_;
  store::Checkpointer checkpointer_{db_};  // the WAL is copied into the database on a thread of its own
  // The writer's thread only (or the caller's while idle):
  std::optional<store::Store::Batch> batch_;
  std::size_t pending_ = 0;
  Clock::time_point deadline_{};
  std::string now_;
  ReplayTarget current_;  // target_ as of the items being written
  struct Configurations {
    std::vector<std::int64_t> id;                // per configuration of the space; 0: not yet known
    std::vector<std::vector<std::string>> part;  // per parameter and value: its text in the params
  };
  std::map<std::pair<std::string, std::string>, Configurations> configurations_;  // by (kernel, space hash)
  // Shared, under mu_:
  std::mutex mu_;
  std::condition_variable wake_, idle_;
  std::vector<Item> queue_;
  ReplayTarget target_;
  bool busy_ = false, sync_ = false, rollback_ = false, stop_ = false;
  std::exception_ptr error_;
  std::thread thread_;  // last: starts once everything above is constructed
};

// An Evaluator that looks configurations up in a recorded cache: a first visit advances the
// simulated clock by the recorded compile + verification + benchmark time (Context makes a revisit
// free), hands the recorded measurement to the writer and returns the recorded objective. A valid
// configuration missing from the cache throws InputError naming it.
class ReplayEvaluator final : public search::Evaluator {
 public:
  // `recorded`'s measurements are moved out as configurations are evaluated (once each).
  // `lanes` > 1: it simulates that many GPUs (tune run --parallel): a batch of the strategy's
  // (search/lanes.h) advances the clock by its longest lane, each configuration going to the lane
  // free first, and each stored measurement's simulated time is its lane's finish.
  ReplayEvaluator(ReplayWriter& writer, const space::Space& space, const interop::CacheFile& cache,
                  interop::Recorded& recorded, std::size_t lanes = 1);

  std::optional<double> evaluate(std::size_t config) override;
  std::vector<std::optional<double>> evaluate_batch(const std::vector<std::size_t>& configs) override;
  std::size_t parallelism() const override { return lanes_; }
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
  interop::Recorded& recorded_;
  std::size_t lanes_;
  double clock_ms_ = 0;
  double strategy_s_ = 0;
  Clock::time_point last_return_ = Clock::now();
  std::vector<std::size_t> evaluated_;
  std::vector<std::optional<double>> objectives_;
  double strategy_ms();  // since the last return, added to strategy_s_
  void check(std::size_t config) const;
  std::optional<double> take(std::size_t config, double finished_ms, double strategy_ms);
};

}  // namespace tune::tuning::detail

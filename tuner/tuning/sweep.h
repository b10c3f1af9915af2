// Internal to tuning: the GPU sweep behind `tune run`, a sequencer of parts that each own one
// thing: the run's shared inputs, device and database (GpuRun), compiling ahead (CompileAhead),
// the state of each size (SizeStates) and deciding (Decider). It plans what is left to measure,
// then per size: brute force measures each configuration as its compile finishes over a window of
// sizes; a guided search asks the one search path shared with the replay (SizeSearch); each size
// is then decided; at the end, the flags and the table.
#pragma once
#include <cstddef>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "common/progress.h"
#include "tuning/compile_ahead.h"
#include "tuning/decider.h"
#include "tuning/gpu_run.h"
#include "tuning/size_search.h"
#include "tuning/size_states.h"

namespace tune::tuning {

class Sweep {
 public:
  // Opens the device and the database and begins the stored run. Throws UnavailableError.
  Sweep(const Options& opts, Prepared prepared);
  int run();

 private:
  void plan();  // what is stored already is skipped: a re-run resumes
  bool size_needs_work(std::size_t s) const;
  // Brute force over a window of sizes whose states fit in memory together; false when the time
  // limit stopped the sweep.
  bool measure_window(const std::vector<std::size_t>& window);
  bool search_one_size(std::size_t s);  // a guided search: one size, then its decision
  void decide_one_size(std::size_t s);  // Part::decide: the decision alone
  // A guided search at one size (sweep_search.cpp): the strategy picks the configurations, each
  // compiled when first asked for, measured and stored (evaluate_guided).
  bool search_size(std::size_t s, SizeState& st);
  std::optional<double> evaluate_guided(std::size_t c, SizeState& st);
  // Measured, stored (durable before anything else can go wrong) and counted.
  store::Measurement measure_and_store(std::size_t c, SizeState& st);
  void finish(bool out_of_time);

  GpuRun run_;
  Decider decider_;  // its other contexts go after every kernel but the configurations', before the session
  CompileAhead kernels_;
  SizeStates states_;
  std::set<store::MeasuredKey> done_;  // stored already: skipped
  std::set<std::string> decided_;      // sizes with a decision stored on this device (plan)
  std::size_t todo_ = 0, progressed_ = 0;
  bool guided_ = false;                 // a strategy chooses the configurations (not brute force)
  std::unique_ptr<SizeSearch> search_;  // guided: the search path shared with the replay
  // guided, per size: where an evaluation's wall time went (the log's line per size)
  struct GuidedTime {
    double compile_s = 0, measure_s = 0;             // waiting for (or running) a compile; measuring and storing
    double ready_s = 0;                              // the reference (SizeStates::ready)
    double idle_s = 0;                               // idle work while waiting for compiles
    std::size_t ready = 0, waited = 0, inline_ = 0;  // compiled ahead and done; hinted, not done; not hinted
  } guided_time_;
  std::unique_ptr<Progress> progress_;
};

}  // namespace tune::tuning

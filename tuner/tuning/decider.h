// The decision at each size (decision/decision.h), by the run's policy: once every configuration of
// the size is measured (brute force) or the strategy is done (guided), the contenders, those within
// reach of the best first pass, are raced: measured again, interleaved round robin
// (run::measure_interleaved) so that drift hits all of them alike, on up to policy.placements
// placements of the arguments, the clearly slower leaving the race after each round; where the
// kernels take a few microseconds, in further CUDA contexts of this process too (run/context.h).
// Their measurements are replaced by the race's, each value weighing its first pass by
// policy.first_pass_weight (the first pass is kept in `extra`), and the verdict is stored
// (store::Decision).
#pragma once
#include <cstddef>
#include <functional>
#include <future>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "tuning/compile_ahead.h"
#include "tuning/gpu_run.h"
#include "tuning/size_states.h"

namespace tune::tuning {

class Decider {
 public:
  Decider(GpuRun& run, CompileAhead& kernels, SizeStates& states);

  // Creates the other contexts in the background when a size that `needs_work` may take them.
  void start_contexts(const std::function<bool(std::size_t)>& needs_work);
  // Races the contenders of size `s` and stores its verdict.
  void decide(std::size_t s, SizeState& st);
  // With an energy objective (run.energy): the configurations of least first-pass energy at size
  // `s` measured again in rounds after a warm-up (decision/energy_race.h; decision/policy.h:
  // energy_*); their stored energy becomes the race's estimate (the first pass kept in
  // extra.energy_first_pass, the race's windows in extra.energy_race). decide() calls it after the
  // time verdict.
  void race_energy(std::size_t s, SizeState& st);
  // The other contexts go before the device is reset (SizeStates::recover); made again on next use.
  void forget_contexts() { others_.clear(); }

 private:
  // The race of the time contenders and the stored verdict (decide() without the energy race).
  void decide_time(std::size_t s, SizeState& st);
  // Whether a size's decision takes the other contexts: its best first pass `best_ms` is short and
  // its arguments are small (policy.other_contexts_below_ms), and they can be had.
  bool contexts_apply(const SizeState& st, double best_ms) const;
  // Adds further contexts of the device to `to` until it holds policy.other_contexts.
  void add_contexts(std::vector<std::unique_ptr<run::Session>>& to) const;
  // The contenders (their kernels and shapes) measured again in the other contexts: one row of
  // estimates per context that measured every one of them; empty where none can be had.
  std::vector<std::vector<decision::Estimate>> measure_elsewhere(SizeState& st,
                                                                 const std::vector<run::LoadedKernel*>& kernels,
                                                                 const std::vector<spec::Geometry>& shapes);

  GpuRun& run_;
  CompileAhead& kernels_;
  SizeStates& states_;
  std::vector<std::unique_ptr<run::Session>> others_;  // other contexts, made on first use
  bool others_off_ = false;                            // none could be had: decisions in one context
  // others_ in the making (start_contexts); joined before the run's session goes
  std::future<std::vector<std::unique_ptr<run::Session>>> others_ready_;
  // Per size decided in this run (index into the run's sizes): the configurations the tie-break
  // across sizes may use there (decision::eligible). They are contenders at the next size too, so
  // that a choice kept across sizes stands on a race's measurement at both, not on one first pass.
  std::map<std::size_t, std::set<std::size_t>> eligible_;  // configurations by index
};

}  // namespace tune::tuning

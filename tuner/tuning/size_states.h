// The state of each problem size while the run measures it: the arguments at that size and their
// further placements, the reference outputs (the reference kernel's or a capture's), the
// ceilings; and a configuration measured against it (verified, then timed on its placements).
// After a fault every live size is restored (recover).
#pragma once
#include <cstddef>
#include <functional>
#include <memory>
#include <set>
#include <span>
#include <string>
#include <vector>

#include "run/ceiling_registry.h"
#include "run/device_check.h"
#include "spec/bind.h"
#include "tuning/compile_ahead.h"
#include "tuning/gpu_run.h"

namespace tune::tuning {

// What every configuration at one size shares.
struct SizeState {
  std::size_t index = 0;
  std::unique_ptr<run::ArgSet> args;
  // The same arguments at other addresses: a first measurement is timed on the first
  // policy.first_placements, the race on all (up to policy.placements; fewer when the device has no
  // room for them), since a time depends on where the buffers lie. Where the arguments are far
  // larger than L2 (policy.late_placements_over_l2), the state holds the first ones until the race
  // makes the rest (SizeStates::add_placements).
  std::vector<std::unique_ptr<run::ArgSet>> more_args;
  std::vector<std::size_t> outputs;
  std::vector<expr::Value> bound_default;  // defaults bound to this size (bytes, flops, reference)
  double bytes = 0, flops = 0;
  run::Dim3 check_grid, check_block;        // Tune.check's launch shape at this size
  std::unique_ptr<run::DeviceCheck> check;  // this size's reference outputs, on the device
  bool reference_ready = false;             // the reference outputs are made (SizeStates::ready)
  std::set<std::string> ceilings_done;      // Tune.ceilings measured at this size
  double best_first_ms = 0;                 // the fastest unscreened first pass so far (policy.screen_ratio)
};

class SizeStates {
 public:
  // `before_reset` runs before the device is reset after a fault (the other contexts go first).
  SizeStates(GpuRun& run, CompileAhead& kernels, std::function<void()> before_reset);

  // The timing method's and the ceilings' kernels, compiled while the sweep begins.
  void prepare();
  // Arguments, reference, ceilings; `deferred` (a guided search): arguments only, the reference at
  // the first measurement (ready), the ceilings while the search waits for compiles (idle_work) or
  // after it.
  std::unique_ptr<SizeState> make(std::size_t s, bool deferred = false);
  void ready(SizeState& st);               // the reference outputs, once
  bool idle_work(SizeState& st);           // a piece of GPU work owed anyway; false when none is left
  void drop(SizeState* st);                // no longer live (a recovery leaves it alone)
  std::size_t bytes(std::size_t s) const;  // device memory size s's state takes

  // How many placements of arguments of `args_bytes` a size holds for the race: policy.placements,
  // fewer where they would take more than a quarter of the device's memory, at least
  // policy.first_placements. add_placements makes them until the state holds `count`.
  std::size_t placements_of(std::size_t args_bytes) const;
  void add_placements(SizeState& st, std::size_t count);
  static std::vector<run::ArgSet*> own_placements(SizeState& st);  // the state's args and more_args
  // A launch of `kern` with `g` on each of the argument sets (placements of the same arguments).
  static std::vector<run::LaunchFn> placements(run::LoadedKernel& kern, const spec::Geometry& g,
                                               std::span<run::ArgSet* const> sets);

  // One configuration at one size: why it cannot run, or verified first, then timed (`g` its shape).
  store::Measurement measure(std::size_t c, SizeState& st, spec::Geometry& g);
  // After a sticky fault: every live size's arguments restored, their reference outputs made again.
  void recover(SizeState& faulted);
  void measure_ceilings(SizeState& st);  // those not measured yet
  // A ceiling whose rate disagrees with both neighbouring sizes is measured again (twice at most).
  void remeasure_implausible_ceilings();

 private:
  std::size_t first_placements_of(std::size_t args_bytes) const;
  std::pair<run::Dim3, run::Dim3> kernel_shape(const spec::Reference& ref, const SizeState& st) const;
  void prepare_reference(SizeState& st);
  bool measure_next_ceiling(SizeState& st, bool only_ready = false);
  void measure_ceiling(SizeState& st, const std::string& name);

  GpuRun& run_;
  CompileAhead& kernels_;
  std::function<void()> before_reset_;
  bool modifies_inputs_ = false;                    // ReadWrite arguments: inputs refilled before a launch
  std::unique_ptr<run::CeilingRegistry> ceilings_;  // Tune.ceilings, measured by name
  std::vector<SizeState*> live_;                    // the sizes whose states are alive (a recovery restores them all)
};

}  // namespace tune::tuning

// A size's state: its arguments (and their placements), its reference outputs, kept on the device
// while the size is measured, and restored after a fault.
#include "tuning/size_states.h"
#include "log/log.h"

#include <algorithm>
#include <tuple>

#include "common/error.h"
#include "run/blocker.h"
#include "run/isolate.h"
#include "run/verify.h"
#include "tuning/capture_args.h"

namespace tune::tuning {

std::vector<run::ArgSpec> arg_specs(const spec::Spec& spec, const sizes::Size& size) {
  std::vector<run::ArgSpec> out;
  for (const auto& a : spec::arguments(spec, size)) {
    run::ArgSpec s;
    s.name = a.name;
    s.dtype = a.type;
    s.scalar = a.scalar;
    s.count = a.scalar ? 1 : a.count;
    const bool random = a.fill == spec::Fill::random;
    s.fill = random ? run::FillKind::random : run::FillKind::constant;
    s.fill_value = a.fill_value.is_number() ? a.fill_value.as_float() : (random ? 1.0 : 0.0);
    s.output = a.output && !a.scalar;
    s.read = a.read;
    s.tensor_map = a.type == spec::kTensorMapType;
    if (s.tensor_map) s.fill_value = 0.0;
    out.push_back(std::move(s));
  }
  return out;
}

run::LaunchExtras launch_extras(const spec::Geometry& g) {
  run::LaunchExtras x;
  x.cluster = to_dim3(g.cluster);
  for (const auto& m : g.tensor_maps) x.tensor_maps.push_back({m.argument, m.buffer, m.dims, m.box, m.swizzle});
  return x;
}

std::size_t buffer_bytes(const std::vector<run::ArgSpec>& specs) {
  std::size_t bytes = 0;
  for (const auto& a : specs)
    if (!a.scalar) bytes += a.count * run::parse_dtype(a.dtype).size();
  return bytes;
}

SizeStates::SizeStates(GpuRun& run, CompileAhead& kernels, std::function<void()> before_reset)
    : run_(run), kernels_(kernels), before_reset_(std::move(before_reset)) {
  for (const auto& a : run.spec.kernel.arguments) modifies_inputs_ = modifies_inputs_ || a.read_and_written();
}

void SizeStates::prepare() {
  run::Blocker::precompile(run_.session.device().arch);  // the timing method's kernels, for the first measurement
  if (!ceilings_) ceilings_ = std::make_unique<run::CeilingRegistry>(run_.session);
  ceilings_->prepare(run_.ext.ceilings);  // their kernels compile while the sweep begins
}

// The launch shape of the reference or the check kernel: every parameter at its default.
std::pair<run::Dim3, run::Dim3> SizeStates::kernel_shape(const spec::Reference& ref, const SizeState& st) const {
  run::Dim3 grid, block;
  unsigned* gd[3] = {&grid.x, &grid.y, &grid.z};
  unsigned* bd[3] = {&block.x, &block.y, &block.z};
  for (int d = 0; d < 3; ++d) {
    if (ref.grid[d]) *gd[d] = static_cast<unsigned>(spec::evaluate_number(run_.spec, *ref.grid[d], st.bound_default));
    if (ref.block[d]) *bd[d] = static_cast<unsigned>(spec::evaluate_number(run_.spec, *ref.block[d], st.bound_default));
  }
  return {grid, block};
}

// Reference outputs for this size, kept on the device (again after a recovery): the captured
// outputs of the application's launch, else the reference kernel's. With Tune.check, the check
// kernel must accept the reference's own outputs first.
void SizeStates::prepare_reference(SizeState& st) {
  const capture::Capture* cap = run_.captured(st.index);
  run::LoadedKernel* reference = kernels_.reference();
  if ((!reference && !cap) || !st.args) return;  // no reference, or a ceiling measured again after the sweep
  run::ArgSet& args = *st.args;
  args.refill();
  args.poison_outputs();
  const std::string& size = run_.sizes[st.index].label;
  if (cap) {
    upload_captured_outputs(*cap, args, st.outputs);
  } else {
    auto [grid, block] = kernel_shape(*run_.ext.reference, st);
    auto status = reference->launch(grid, block, 0, args);
    if (!status.ok()) throw Error("the reference kernel failed at size " + size + ": " + status.message);
    for (std::size_t a : st.outputs)
      if (auto unwritten = run::count_unwritten(args.dtype(a), args.buffer(a)))
        throw Error("the reference kernel left " + std::to_string(unwritten) + " elements of '" + args.spec(a).name +
                    "' unwritten at size " + size);
  }
  st.check->keep_reference(args, st.outputs);
  run::LoadedKernel* check = kernels_.check_kernel();
  if (!check) return;
  std::tie(st.check_grid, st.check_block) = kernel_shape(*run_.ext.check, st);
  auto self = st.check->run_check(*check, st.check_grid, st.check_block, args, st.outputs);
  if (!self.status.ok())
    throw Error(run_.o.space + ": Tune.check: the check kernel failed at size " + size + ": " + self.status.message);
  if (!self.error.empty())
    throw Error(run_.o.space + ": Tune.check: at size " + size +
                " the check kernel rejects the reference's own outputs: " + self.error);
}

// Once the failure is stored. Throws DeviceLostError where the driver wants a fresh process
// (run/isolate.h): the run is then marked interrupted and a new worker resumes it.
void SizeStates::recover(SizeState& faulted) {
  std::vector<SizeState*> live = live_;
  if (std::find(live.begin(), live.end(), &faulted) == live.end()) live.push_back(&faulted);
  for (SizeState* st : live)
    if (st->check) st->check->forget();
  if (before_reset_) before_reset_();
  try {
    run_.session.recover();
  } catch (const run::DeviceLostError&) {
    run_.db.finish_run(run_.run_id, store::RunStatus::interrupted);
    throw;
  }
  for (SizeState* st : live)
    if (st->reference_ready) prepare_reference(*st);
}

std::vector<run::LaunchFn> SizeStates::placements(run::LoadedKernel& kern, const spec::Geometry& g,
                                                  std::span<run::ArgSet* const> sets) {
  std::vector<run::LaunchFn> out;
  out.reserve(sets.size());
  auto extras = std::make_shared<const run::LaunchExtras>(launch_extras(g));
  for (run::ArgSet* args : sets)
    out.push_back([&kern, &g, args, extras] {
      return kern.enqueue(to_dim3(g.grid), to_dim3(g.block), g.dynamic_smem, *args, *extras);
    });
  return out;
}

std::vector<run::ArgSet*> SizeStates::own_placements(SizeState& st) {
  std::vector<run::ArgSet*> sets = {st.args.get()};
  for (const auto& more : st.more_args) sets.push_back(more.get());
  return sets;
}

void SizeStates::add_placements(SizeState& st, std::size_t count) {
  try {
    while (st.more_args.size() + 1 < count)
      st.more_args.push_back(std::make_unique<run::ArgSet>(run_.session, st.args->specs(), st.args->seed()));
  } catch (const run::CudaError& e) {
    if (e.sticky()) throw;
    log::warn("{}: no room for {} placements of the arguments ({}): timing on {}", run_.sizes[st.index].label, count,
              e.what(), st.more_args.size() + 1);
  }
}

// How many placements a state holds from the start: placements_of, or the first pass's where the
// arguments are at least policy.late_placements_over_l2 times the L2's size.
std::size_t SizeStates::first_placements_of(std::size_t args_bytes) const {
  const std::size_t all = placements_of(args_bytes);
  if (args_bytes / run_.policy().late_placements_over_l2 < run_.session.device().l2_bytes) return all;
  return std::min(all, run_.policy().first_placements);
}

std::size_t SizeStates::placements_of(std::size_t args_bytes) const {
  const std::size_t fit = run_.session.device().global_memory_bytes / 4 / std::max<std::size_t>(1, args_bytes);
  return std::clamp<std::size_t>(fit, run_.policy().first_placements, run_.policy().placements);
}

// Device memory a size's state takes: its arguments on every placement and the reference outputs.
std::size_t SizeStates::bytes(std::size_t s) const {
  const auto specs = arg_specs(run_.spec, run_.sizes[s].size);
  const std::size_t args = buffer_bytes(specs);
  std::size_t outputs = 0;
  for (const auto& a : specs)
    if (!a.scalar && a.output) outputs += a.count * run::parse_dtype(a.dtype).size();
  return args * first_placements_of(args) + outputs;
}

std::unique_ptr<SizeState> SizeStates::make(std::size_t s, bool deferred) {
  const sizes::Size& size = run_.sizes[s].size;
  const spec::Extension& ext = run_.ext;
  auto st = std::make_unique<SizeState>();
  st->index = s;
  st->check = std::make_unique<run::DeviceCheck>(run_.session);
  auto specs = arg_specs(run_.spec, size);
  if (const capture::Capture* cap = run_.captured(s)) use_captured_inputs(*cap, specs);  // shared, not copied
  st->args = std::make_unique<run::ArgSet>(run_.session, specs, run_.o.data_seed);
  add_placements(*st, first_placements_of(buffer_bytes(specs)));
  for (std::size_t a = 0; a < st->args->size(); ++a)
    if (st->args->spec(a).output) st->outputs.push_back(a);
  st->bound_default = spec::bind_config(run_.spec, spec::default_values(run_.spec), size);
  st->bytes = ext.bytes ? spec::evaluate_number(run_.spec, *ext.bytes, st->bound_default) : 0;
  st->flops = ext.flops ? spec::evaluate_number(run_.spec, *ext.flops, st->bound_default) : 0;
  live_.push_back(st.get());
  if (deferred) return st;
  ready(*st);
  measure_ceilings(*st);
  return st;
}

// In make for brute force; at a guided search's first measurement, so that the reference compiles
// while the strategy's first configurations do.
void SizeStates::ready(SizeState& st) {
  if (st.reference_ready) return;
  kernels_.load_helpers();
  prepare_reference(st);
  st.reference_ready = true;
}

// The clocks' warm-up first: the search's first measurement would otherwise pay it. A guided
// search waits for compiles most of its time: the ceilings measured then cost it nothing.
bool SizeStates::idle_work(SizeState& st) {
  if (!run_.session.clocks_settled) {
    run::settle_clocks(run_.session);
    return true;
  }
  return measure_next_ceiling(st, true);  // not one whose cuBLAS handle or kernels are still being made
}

void SizeStates::drop(SizeState* st) { std::erase(live_, st); }

}  // namespace tune::tuning

// One size of the sweep: the arguments at that size, the reference outputs, the ceilings, then
// every configuration verified against the reference (outputs poisoned first), timed and stored.
#include <spdlog/spdlog.h>
#include <nlohmann/json.hpp>

#include <tuple>

#include "common/error.h"
#include "common/progress.h"
#include "run/ceilings.h"
#include "run/isolate.h"
#include "run/verify.h"
#include "tuning/capture_args.h"
#include "tuning/sweep.h"

namespace tune::tuning {

std::vector<run::ArgSpec> arg_specs(const spec::Spec& spec, const sizes::Size& size) {
  std::vector<run::ArgSpec> out;
  for (const auto& a : arguments(spec, size)) {
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
    out.push_back(std::move(s));
  }
  return out;
}

// Bytes of one placement of the arguments (their buffers; scalars take none).
std::size_t buffer_bytes(const std::vector<run::ArgSpec>& specs) {
  std::size_t bytes = 0;
  for (const auto& a : specs)
    if (!a.scalar) bytes += a.count * run::parse_dtype(a.dtype).size();
  return bytes;
}

// The launch shape of the reference or the check kernel: every parameter at its default.
std::pair<run::Dim3, run::Dim3> Sweep::kernel_shape(const Reference& ref, const SizeState& st) const {
  run::Dim3 grid, block;
  unsigned* gd[3] = {&grid.x, &grid.y, &grid.z};
  unsigned* bd[3] = {&block.x, &block.y, &block.z};
  for (int d = 0; d < 3; ++d) {
    if (ref.grid[d]) *gd[d] = static_cast<unsigned>(evaluate_number(spec_, *ref.grid[d], st.bound_default));
    if (ref.block[d]) *bd[d] = static_cast<unsigned>(evaluate_number(spec_, *ref.block[d], st.bound_default));
  }
  return {grid, block};
}

// The capture this size comes from (tune --capture), if any.
const capture::Capture* Sweep::captured(std::size_t s) const {
  for (const auto& c : captures_)
    if (c.size == sizes_[s].size.dims) return &c;
  return nullptr;
}

// Reference outputs for this size, kept on the device (again after a recovery): the captured
// outputs of the application's launch, else the reference kernel's. With Tune.check, the check
// kernel must accept the reference's own outputs first.
void Sweep::prepare_reference(SizeState& st) {
  const capture::Capture* cap = captured(st.index);
  if ((!reference_ && !cap) || !st.args) return;  // no reference, or a ceiling measured again after the sweep
  run::ArgSet& args = *st.args;
  args.refill();
  args.poison_outputs();
  const std::string& size = sizes_[st.index].label;
  if (cap) {
    upload_captured_outputs(*cap, args, st.outputs);
  } else {
    auto [grid, block] = kernel_shape(*ext_.reference, st);
    auto status = reference_->launch(grid, block, 0, args);
    if (!status.ok()) throw Error("the reference kernel failed at size " + size + ": " + status.message);
    for (std::size_t a : st.outputs)
      if (auto unwritten = run::count_unwritten(args.dtype(a), args.buffer(a)))
        throw Error("the reference kernel left " + std::to_string(unwritten) + " elements of '" + args.spec(a).name +
                    "' unwritten at size " + size);
  }
  st.check->keep_reference(args, st.outputs);
  if (!check_kernel_) return;
  std::tie(st.check_grid, st.check_block) = kernel_shape(*ext_.check, st);
  auto self = st.check->run_check(*check_kernel_, st.check_grid, st.check_block, args, st.outputs);
  if (!self.status.ok())
    throw Error(o_.space + ": Tune.check: the check kernel failed at size " + size + ": " + self.status.message);
  if (!self.error.empty())
    throw Error(o_.space + ": Tune.check: at size " + size +
                " the check kernel rejects the reference's own outputs: " + self.error);
}

// After a sticky fault, once the failure is stored: every live size's arguments are restored by the
// Session, their reference outputs computed again. Throws DeviceLostError where the driver wants a
// fresh process (run/isolate.h): the run is then marked interrupted and a new worker resumes it.
void Sweep::recover(SizeState& faulted) {
  std::vector<SizeState*> live = live_;
  if (std::find(live.begin(), live.end(), &faulted) == live.end()) live.push_back(&faulted);
  for (SizeState* st : live)
    if (st->check) st->check->forget();
  others_.clear();  // the other contexts go before the device is reset; made again on next use
  try {
    session_.recover();
  } catch (const run::DeviceLostError&) {
    db_.finish_run(run_id_, store::RunStatus::interrupted);
    throw;
  }
  for (SizeState* st : live)
    if (st->reference_ready) prepare_reference(*st);
}

// Ceilings at this size, with the kernels' timing method. A ceiling that cannot run here (out of
// memory at a large size) is skipped with a warning; a fault costs a recovery.
void Sweep::measure_ceilings(SizeState& st) {
  while (measure_next_ceiling(st)) {}
}

bool Sweep::measure_next_ceiling(SizeState& st, bool only_ready) {
  for (const auto& name : ext_.ceilings) {  // ceilings_ is made by start_compiles, or by measure_ceiling
    if (st.ceilings_done.contains(name) || (only_ready && ceilings_ && !ceilings_->ready(name))) continue;
    st.ceilings_done.insert(name);
    measure_ceiling(st, name);
    return true;
  }
  return false;
}

void Sweep::measure_ceiling(SizeState& st, const std::string& name) {
  const sizes::Size& size = sizes_[st.index].size;
  run::CeilingArgs args;
  args.bytes = st.bytes;
  for (int i = 0; i < 3; ++i) args.dims[static_cast<std::size_t>(i)] = static_cast<std::size_t>(size.dims[i]);
  if (!ceilings_) ceilings_ = std::make_unique<run::CeilingRegistry>(session_);
  run::Ceiling c;
  const auto t0 = Clock::now();
  try {
    c = ceilings_->measure(name, args, timing_);
  } catch (const run::CudaError& e) {
    spdlog::warn("ceiling {} at {}: {}", name, sizes_[st.index].label, e.what());
    if (e.sticky()) recover(st);
    return;
  }
  if (!c.ok()) {
    spdlog::warn("ceiling {} at {}: {}", name, sizes_[st.index].label,
                 c.timing.ok() ? c.check : c.timing.status.message);
    if (c.timing.status.sticky()) recover(st);
    return;
  }
  // the same statistic as the kernels' objective
  const double ms = decision::estimate(c.timing.samples_ms, rule_.statistic).value;
  const double value = c.value * c.time_ms / ms;  // GB/s or GFLOP/s scale with 1 / time
  spdlog::debug(
      "ceiling {} at {}: {:.4f} ms = {:.0f} {} ({}); set up, timed and checked in {:.0f} ms (timing {:.0f} ms: the "
      "first launches {:.0f} ms, {} launches, {:.0f} ms timed, {} rounds taken again)",
      c.name, sizes_[st.index].label, ms, value, c.unit, c.check, ms_since(t0), c.timing.wall_ms, c.timing.prepare_ms,
      c.timing.launches, c.timing.timed_ms, c.timing.retaken);
  store::Ceiling sc;
  sc.run_id = run_id_;
  sc.device = session_.device().name;
  sc.size = sizes_[st.index].label;
  sc.name = name;
  sc.time_ms = ms;
  if (c.unit == "GB/s")
    sc.gbps = value;
  else
    sc.gflops = value;
  for (double v : c.timing.samples_ms) sc.samples_ms.push_back(static_cast<float>(v));
  db_.record_ceiling(sc);
}

// One configuration at one size: why it cannot run, or verified first, then timed.
store::Measurement Sweep::measure_config(std::size_t c, SizeState& st, Geometry& g) {
  Compiled& k = configs_[c].compiled;
  const run::DeviceInfo& dev = session_.device();
  store::Measurement m;
  m.config_id = configs_[c].id;
  m.run_id = run_id_;
  m.device = dev.name;
  m.size = sizes_[st.index].size;
  m.compile_ms = k.compile_ms;
  const auto t0 = Clock::now();
  try {
    g = geometry(spec_, bind_config(spec_, space_.config_values(c), sizes_[st.index].size));
  } catch (const InputError& e) {
    k.status = store::MeasurementStatus::restricted;
    k.error = e.what();
  }
  std::string why;
  if (k.status == store::MeasurementStatus::ok && k.faulted) {
    m.status = store::MeasurementStatus::runtime_error;
    m.error = "not run: this configuration faulted the GPU context at an earlier size in this run";
  } else if (k.status != store::MeasurementStatus::ok) {
    m.status = k.status;
    m.error = k.error;
  } else if (g.threads_per_block() > static_cast<std::uint64_t>(dev.max_threads_per_block)) {
    m.status = store::MeasurementStatus::restricted;
    m.error = "block of " + std::to_string(g.threads_per_block()) + " threads exceeds the device limit of " +
              std::to_string(dev.max_threads_per_block);
  } else if (k.resources.parsed && !(why = compile::check_launch(k.resources, static_cast<int>(g.threads_per_block()),
                                                                 0, dev.launch_limits()))
                                        .empty()) {
    m.status = store::MeasurementStatus::launch_failed;
    m.error = why;
  }
  if (m.status != store::MeasurementStatus::ok) return m;

  run::LoadedKernel& kern = *k.kernel;
  run::ArgSet& args = *st.args;
  // Verify first, with poisoned outputs, against the reference. Inputs are re-uploaded only when
  // the kernel may change them (ReadWrite arguments): uploads dominate otherwise.
  if (modifies_inputs_) args.refill();
  args.poison_outputs();
  auto status = kern.launch(to_dim3(g.grid), to_dim3(g.block), 0, args);
  if (!status.ok()) {
    m.status = status.sticky() ? store::MeasurementStatus::runtime_error : store::MeasurementStatus::launch_failed;
    m.error = status.message;
    if (status.sticky()) {
      k.faulted = true;
      spdlog::warn("{} at {} faulted the context: {}; recovering", configs_[c].params, sizes_[st.index].label,
                   status.message);
    }
    return m;
  }
  std::string diff;
  if (check_kernel_ && st.check->has_reference()) {  // Tune.check judges instead of the element-wise comparison
    auto r = st.check->run_check(*check_kernel_, st.check_grid, st.check_block, args, st.outputs);
    if (!r.status.ok()) {
      m.status = r.status.sticky() ? store::MeasurementStatus::runtime_error : store::MeasurementStatus::launch_failed;
      m.error = "check kernel " + check_kernel_->name() + ": " + r.status.message;
      if (r.status.sticky()) {
        k.faulted = true;  // the outputs it judged made it fault: this configuration's doing
        spdlog::warn("{} at {}: the check kernel faulted the context: {}; recovering", configs_[c].params,
                     sizes_[st.index].label, r.status.message);
      }
      return m;
    }
    diff = r.error;
  } else if (st.check->has_reference()) {
    diff = st.check->compare(args, st.outputs, ext_.relative_tolerance, ext_.absolute_tolerance);
  }
  m.verification_ms = ms_since(t0);
  if (!diff.empty()) {
    m.status = store::MeasurementStatus::verification_failed;
    m.error = diff;
    return m;
  }

  const auto tb = Clock::now();
  const std::vector<run::ArgSet*> sets = own_placements(st);
  auto timing = run::measure(
      session_, placements(kern, g, std::span(sets).first(std::min<std::size_t>(sets.size(), kFirstPlacements))),
      timing_);
  m.benchmark_ms = ms_since(tb);
  if (!timing.ok()) {
    m.status =
        timing.status.sticky() ? store::MeasurementStatus::runtime_error : store::MeasurementStatus::launch_failed;
    m.error = timing.status.message;
    if (timing.status.sticky()) k.faulted = true;
    return m;
  }
  count_.timed_ms += timing.timed_ms;
  if (timing.retaken > 0 || timing.throttled) {
    nlohmann::ordered_json extra = nlohmann::ordered_json::object();
    extra["retaken_rounds"] = timing.retaken;
    extra["throttled"] = timing.throttled;
    if (timing.steady_throttle) extra["steady_throttle"] = true;
    m.extra = extra.dump();
    if (timing.steady_throttle)
      spdlog::debug("{} at {}: throttled, the GPU's steady state (not taken again); kept and marked",
                    configs_[c].params, sizes_[st.index].label);
    else if (timing.throttled)
      spdlog::warn("{} at {}: the GPU throttled through {} retakes; kept and marked", configs_[c].params,
                   sizes_[st.index].label, timing.retaken);
  }
  for (double v : timing.samples_ms) m.samples_ms.push_back(static_cast<float>(v));
  const double t = decision::estimate(timing.samples_ms, rule_.statistic).value;
  m.objective = t;
  if (st.bytes > 0) m.gbps = st.bytes / t / 1e6;
  if (st.flops > 0) m.gflops = st.flops / t / 1e6;
  return m;
}

std::vector<run::LaunchFn> Sweep::placements(run::LoadedKernel& kern, const Geometry& g,
                                             std::span<run::ArgSet* const> sets) {
  std::vector<run::LaunchFn> out;
  out.reserve(sets.size());
  for (run::ArgSet* args : sets)
    out.push_back([&kern, &g, args] { return kern.enqueue(to_dim3(g.grid), to_dim3(g.block), 0, *args); });
  return out;
}

std::vector<run::ArgSet*> Sweep::own_placements(SizeState& st) {
  std::vector<run::ArgSet*> sets = {st.args.get()};
  for (const auto& more : st.more_args) sets.push_back(more.get());
  return sets;
}

void Sweep::add_placements(SizeState& st, std::size_t count) {
  try {
    while (st.more_args.size() + 1 < count)
      st.more_args.push_back(std::make_unique<run::ArgSet>(session_, st.args->specs(), st.args->seed()));
  } catch (const run::CudaError& e) {
    if (e.sticky()) throw;
    spdlog::warn("{}: no room for {} placements of the arguments ({}): timing on {}", sizes_[st.index].label, count,
                 e.what(), st.more_args.size() + 1);
  }
}

std::size_t Sweep::first_placements_of(std::size_t args_bytes) const {
  const std::size_t all = placements_of(args_bytes);
  if (args_bytes / kLatePlacementsOverL2 < session_.device().l2_bytes) return all;
  return std::min(all, kFirstPlacements);
}

std::size_t Sweep::placements_of(std::size_t args_bytes) const {
  const std::size_t fit = session_.device().global_memory_bytes / 4 / std::max<std::size_t>(1, args_bytes);
  return std::clamp<std::size_t>(fit, kFirstPlacements, kPlacements);
}

bool Sweep::size_needs_work(std::size_t s) const {
  if (guided_ || (s == 0 && pending_ > 0)) return true;
  // measured whole but not decided: a run that ended between the two (killed, say) resumes there
  if (o_.share.part == Part::whole && !decided_.contains(sizes_[s].label)) return true;
  for (std::size_t c = 0; c < n_configs_; ++c)
    if (configs_[c].needed && !done_.count({configs_[c].params, sizes_[s].label})) return true;
  return false;  // all stored: no reference, no ceilings
}

// Device memory a size's state takes: its arguments on every placement and the reference outputs.
std::size_t Sweep::state_bytes(std::size_t s) const {
  const auto specs = arg_specs(spec_, sizes_[s].size);
  const std::size_t args = buffer_bytes(specs);
  std::size_t outputs = 0;
  for (const auto& a : specs)
    if (!a.scalar && a.output) outputs += a.count * run::parse_dtype(a.dtype).size();
  return args * first_placements_of(args) + outputs;
}

std::unique_ptr<SizeState> Sweep::make_state(std::size_t s, bool deferred) {
  const sizes::Size& size = sizes_[s].size;
  auto st = std::make_unique<SizeState>();
  st->index = s;
  st->check = std::make_unique<run::DeviceCheck>(session_);
  auto specs = arg_specs(spec_, size);
  if (const capture::Capture* cap = captured(s)) use_captured_inputs(*cap, specs);  // shared, not copied
  st->args = std::make_unique<run::ArgSet>(session_, specs, o_.data_seed);
  add_placements(*st, first_placements_of(buffer_bytes(specs)));
  for (std::size_t a = 0; a < st->args->size(); ++a)
    if (st->args->spec(a).output) st->outputs.push_back(a);
  st->bound_default = bind_config(spec_, default_values(spec_), size);
  st->bytes = ext_.bytes ? evaluate_number(spec_, *ext_.bytes, st->bound_default) : 0;
  st->flops = ext_.flops ? evaluate_number(spec_, *ext_.flops, st->bound_default) : 0;
  live_.push_back(st.get());
  if (deferred) return st;
  ready_size(*st);
  measure_ceilings(*st);
  return st;
}

// The size's reference outputs, once: in make_state for brute force; at a guided search's first
// measurement, so that the reference compiles while the strategy's first configurations do.
void Sweep::ready_size(SizeState& st) {
  if (st.reference_ready) return;
  load_helpers();
  prepare_reference(st);
  st.reference_ready = true;
}

// The clocks' warm-up first: the search's first measurement would otherwise pay it. A guided
// search waits for compiles most of its time (a compile takes 0.3 to 1.2 s on an H100 host, a
// measurement 20 to 120 ms): the ceilings measured then cost it nothing, where measured before its
// first evaluation they took 1.2 to 1.9 s of its wall time (cuBLAS's first launches included).
bool Sweep::idle_work(SizeState& st) {
  if (!session_.clocks_settled) {
    run::settle_clocks(session_);
    return true;
  }
  return measure_next_ceiling(st, true);  // not one whose cuBLAS handle or kernels are still being made
}

void Sweep::drop_state(SizeState* st) { std::erase(live_, st); }

// A guided search: size after size (each starts from its searched neighbours).
bool Sweep::search_one_size(std::size_t s) {
  auto st = make_state(s, true);
  const bool in_time = search_size(s, *st);
  drop_guesses();
  if (in_time && o_.share.part == Part::whole) decide_size(s, *st);
  measure_ceilings(*st);  // those no compile wait took (all of them where everything was stored before)
  drop_state(st.get());
  return in_time;
}

// A size split over MPI ranks (Part::decide): decided from the shares' measurements, merged into
// this database; its ceilings measured on this GPU.
void Sweep::decide_one_size(std::size_t s) {
  auto st = make_state(s, true);
  decide_size(s, *st);
  measure_ceilings(*st);
  drop_state(st.get());
}

// Brute force over a window of sizes whose states fit in memory together: each configuration,
// as soon as it is compiled, is measured at every size of the window (so the first window's
// measurements overlap the compiles instead of waiting for them), then each size is decided.
bool Sweep::measure_window(const std::vector<std::size_t>& window) {
  std::vector<std::unique_ptr<SizeState>> states;
  states.reserve(window.size());
  for (std::size_t s : window) states.push_back(make_state(s));
  std::size_t cursor = 0;
  bool in_time = true;
  while (auto next = next_config(window.front(), cursor)) {
    const std::size_t c = *next;
    for (auto& st : states) {
      if (done_.count({configs_[c].params, sizes_[st->index].label})) continue;
      if (o_.time_limit_s && ms_since(start_) / 1000.0 > *o_.time_limit_s) {
        spdlog::warn("time limit of {} s reached: stopping (a re-run resumes)", *o_.time_limit_s);
        in_time = false;
        break;
      }
      measure_and_store(c, *st);
    }
    if (!in_time) break;
  }
  for (auto& st : states) {  // each state goes once decided: a decision may add placements to its own
    if (in_time && o_.share.part == Part::whole) decide_size(st->index, *st);
    drop_state(st.get());
    st.reset();
  }
  return in_time;
}

// One configuration at one size, measured, stored (durable before anything else can go wrong) and
// counted; a configuration that faulted the context costs a recovery.
store::Measurement Sweep::measure_and_store(std::size_t c, SizeState& st) {
  Geometry g;
  const auto t0 = Clock::now();
  store::Measurement m = measure_config(c, st, g);
  count_.measure_ms += ms_since(t0);
  db_.record(m);  // durable before anything else can go wrong
  if (configs_[c].compiled.faulted && m.status == store::MeasurementStatus::runtime_error &&
      !m.error.starts_with("not run"))
    recover(st);
  if (m.status == store::MeasurementStatus::ok) {
    spdlog::debug("{} at {}: grid ({},{},{}) block ({},{},{}): verified, {:.4f} ms ({} samples)", configs_[c].params,
                  sizes_[st.index].label, g.grid[0], g.grid[1], g.grid[2], g.block[0], g.block[1], g.block[2],
                  *m.objective, m.samples_ms.size());
    ++count_.measured;
  } else {
    ++count_.failed;
    spdlog::debug("{} at {}: {}: {}", configs_[c].params, sizes_[st.index].label, store::to_string(m.status),
                  m.error.substr(0, 200));
  }
  progress_->update(++progressed_,
                    std::to_string(count_.compiled) + " compiled, " + std::to_string(count_.failed) + " failed");
  return m;
}

}  // namespace tune::tuning

// Measurements against a size's state: a configuration (verified against the reference outputs,
// poisoned first, then timed on the first pass's placements) and the ceilings (Tune.ceilings, with
// the kernels' timing method), each ceiling checked against its neighbouring sizes at the end.

#include <nlohmann/json.hpp>

#include <map>
#include <optional>

#include "log/log.h"
#include "query/table.h"
#include "run/ceilings.h"
#include "tuning/size_states.h"

namespace tune::tuning {

store::Measurement SizeStates::measure(std::size_t c, SizeState& st, spec::Geometry& g) {
  Compiled& k = run_.configs[c].compiled;
  const run::DeviceInfo& dev = run_.session.device();
  const std::string& params = run_.configs[c].params;
  const std::string& size = run_.sizes[st.index].label;
  store::Measurement m;
  m.config_id = run_.configs[c].id;
  m.run_id = run_.run_id;
  m.device = dev.name;
  m.size = run_.sizes[st.index].size;
  m.compile_ms = k.compile_ms;
  const auto t0 = Clock::now();
  try {
    g = spec::geometry(run_.spec, spec::bind_config(run_.spec, run_.space.config_values(c), m.size));
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
                                                                 static_cast<int>(g.dynamic_smem), dev.launch_limits()))
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
  auto status = kern.launch(to_dim3(g.grid), to_dim3(g.block), g.dynamic_smem, args, launch_extras(g));
  if (!status.ok()) {
    m.status = status.sticky() ? store::MeasurementStatus::runtime_error : store::MeasurementStatus::launch_failed;
    m.error = status.message;
    if (status.sticky()) {
      k.faulted = true;
      log::warn("{} at {} faulted the context: {}; recovering", params, size, status.message);
    }
    return m;
  }
  std::string diff;
  run::LoadedKernel* check = kernels_.check_kernel();
  if (check && st.check->has_reference()) {  // Tune.check judges instead of the element-wise comparison
    auto r = st.check->run_check(*check, st.check_grid, st.check_block, args, st.outputs);
    if (!r.status.ok()) {
      m.status = r.status.sticky() ? store::MeasurementStatus::runtime_error : store::MeasurementStatus::launch_failed;
      m.error = "check kernel " + check->name() + ": " + r.status.message;
      if (r.status.sticky()) {
        k.faulted = true;  // the outputs it judged made it fault: this configuration's doing
        log::warn("{} at {}: the check kernel faulted the context: {}; recovering", params, size, r.status.message);
      }
      return m;
    }
    diff = r.error;
  } else if (st.check->has_reference()) {
    diff = st.check->compare(args, st.outputs, run_.ext.relative_tolerance, run_.ext.absolute_tolerance);
  }
  m.verification_ms = ms_since(t0);
  if (!diff.empty()) {
    m.status = store::MeasurementStatus::verification_failed;
    m.error = diff;
    return m;
  }

  const auto tb = Clock::now();
  const std::vector<run::ArgSet*> sets = own_placements(st);
  const std::size_t first = std::min<std::size_t>(sets.size(), run_.policy().first_placements);
  run::TimingOptions first_pass = run_.timing;
  if (run_.policy().screen_ratio > 0 && st.best_first_ms > 0 && !run_.energy)
    first_pass.screen_above_ms = run_.policy().screen_ratio * st.best_first_ms;
  auto timing = run::measure(run_.session, placements(kern, g, std::span(sets).first(first)), first_pass);
  m.benchmark_ms = ms_since(tb);
  if (!timing.ok()) {
    m.status =
        timing.status.sticky() ? store::MeasurementStatus::runtime_error : store::MeasurementStatus::launch_failed;
    m.error = timing.status.message;
    if (timing.status.sticky()) k.faulted = true;
    return m;
  }
  run_.count.timed_ms += timing.timed_ms;
  nlohmann::ordered_json extra = nlohmann::ordered_json::object();
  if (timing.screened) extra["screened"] = true;  // stopped early: over policy.screen_ratio of the best so far
  if (timing.retaken > 0 || timing.throttled) {
    extra["retaken_rounds"] = timing.retaken;
    extra["throttled"] = timing.throttled;
    if (timing.steady_throttle) extra["steady_throttle"] = true;
    if (timing.steady_throttle)
      log::debug("{} at {}: throttled, the GPU's steady state (not taken again); kept and marked", params, size);
    else if (timing.throttled)
      log::warn("{} at {}: the GPU throttled through {} retakes; kept and marked", params, size, timing.retaken);
  }
  for (double v : timing.samples_ms) m.samples_ms.push_back(static_cast<float>(v));
  const decision::Estimate time = decision::estimate(timing.samples_ms, run_.rule.statistic);
  const double t = time.value;
  m.objective = t;
  if (!timing.screened && t > 0) st.best_first_ms = st.best_first_ms > 0 ? std::min(st.best_first_ms, t) : t;
  if (run_.energy) {  // the energy window, on the first placement (run/energy.h)
    const auto te = Clock::now();
    run::LaunchStatus es;
    const auto launch = placements(kern, g, std::span(sets).first(1));
    if (!run_.energy->warmed()) {  // the run's first window: the board warmed first
      const std::vector<double> watts = run_.energy->warm_up(launch.at(0), t, es);
      if (es.ok() && !watts.empty())
        log::info("energy: the board warmed for {} windows, {:.1f} to {:.1f} W", watts.size(), watts.front(),
                  watts.back());
    }
    const run::EnergyReading r =
        es.ok() ? run_.energy->measure(launch.at(0), t, time.relative(), es) : run::EnergyReading{};
    m.benchmark_ms = *m.benchmark_ms + ms_since(te);
    if (!es.ok()) {
      m.status = es.sticky() ? store::MeasurementStatus::runtime_error : store::MeasurementStatus::launch_failed;
      m.error = es.message;
      if (es.sticky()) k.faulted = true;
      return m;
    }
    if (r.resolved) {
      m.energy_j = r.energy.joules;
      m.energy_hw_j = r.energy.half_width;
      m.power_w = r.power.watts;
      m.power_hw_w = r.power.half_width;
    } else {
      extra["energy"] = "unresolved: " + r.why;
      log::warn("{} at {}: energy {}", params, size, r.why);
    }
    extra["energy_window_ms"] = r.power.span_ms;
    extra["energy_ms_per_launch"] = r.ms_per_launch;
    if (r.instant_w) extra["power_instant_w"] = *r.instant_w;
  }
  if (!extra.empty()) m.extra = extra.dump();
  if (st.bytes > 0) m.gbps = st.bytes / t / 1e6;
  if (st.flops > 0) m.gflops = st.flops / t / 1e6;
  return m;
}

// A ceiling that cannot run here (out of memory at a large size) is skipped with a warning; a
// fault costs a recovery.
void SizeStates::measure_ceilings(SizeState& st) {
  while (measure_next_ceiling(st)) {}
}

// The first ceiling not measured yet at this size (`only_ready`: of those whose cuBLAS handle and
// kernels are made already); false when there is none.
bool SizeStates::measure_next_ceiling(SizeState& st, bool only_ready) {
  for (const auto& name : run_.ext.ceilings) {  // ceilings_ is made by prepare, or by measure_ceiling
    if (st.ceilings_done.contains(name) || (only_ready && ceilings_ && !ceilings_->ready(name))) continue;
    st.ceilings_done.insert(name);
    measure_ceiling(st, name);
    return true;
  }
  return false;
}

void SizeStates::measure_ceiling(SizeState& st, const std::string& name) {
  const sizes::Size& size = run_.sizes[st.index].size;
  const std::string& label = run_.sizes[st.index].label;
  run::CeilingArgs args;
  args.bytes = st.bytes;
  for (int i = 0; i < 3; ++i) args.dims[static_cast<std::size_t>(i)] = static_cast<std::size_t>(size.dims[i]);
  if (!ceilings_) ceilings_ = std::make_unique<run::CeilingRegistry>(run_.session);
  run::Ceiling c;
  const auto t0 = Clock::now();
  try {
    c = ceilings_->measure(name, args, run_.timing);
  } catch (const run::CudaError& e) {
    log::warn("ceiling {} at {}: {}", name, label, e.what());
    if (e.sticky()) recover(st);
    return;
  }
  if (!c.ok()) {
    log::warn("ceiling {} at {}: {}", name, label, c.timing.ok() ? c.check : c.timing.status.message);
    if (c.timing.status.sticky()) recover(st);
    return;
  }
  // the same statistic as the kernels' objective
  const double ms = decision::estimate(c.timing.samples_ms, run_.rule.statistic).value;
  const double value = c.value * c.time_ms / ms;  // GB/s or GFLOP/s scale with 1 / time
  log::debug(
      "ceiling {} at {}: {:.4f} ms = {:.0f} {} ({}); set up, timed and checked in {:.0f} ms (timing {:.0f} ms: the "
      "first launches {:.0f} ms, {} launches, {:.0f} ms timed, {} rounds taken again)",
      c.name, label, ms, value, c.unit, c.check, ms_since(t0), c.timing.wall_ms, c.timing.prepare_ms, c.timing.launches,
      c.timing.timed_ms, c.timing.retaken);
  store::Ceiling sc;
  sc.run_id = run_.run_id;
  sc.device = run_.device();
  sc.size = label;
  sc.name = name;
  sc.time_ms = ms;
  if (c.unit == "GB/s")
    sc.gbps = value;
  else
    sc.gflops = value;
  for (double v : c.timing.samples_ms) sc.samples_ms.push_back(static_cast<float>(v));
  run_.db.record_ceiling(sc);
}

// Against both neighbouring sizes of this run (query::implausible); the table marks one that still
// is after two attempts.
void SizeStates::remeasure_implausible_ceilings() {
  const std::vector<SizeTarget>& sizes = run_.sizes;
  for (int attempt = 0; attempt < 2; ++attempt) {
    std::vector<std::map<std::string, double>> rate(sizes.size());
    for (std::size_t s = 0; s < sizes.size(); ++s)
      for (const auto& c : run_.db.ceilings(run_.device(), sizes[s].label, run_.run_id))
        if (c.gbps || c.gflops) rate[s][c.name] = c.gbps ? *c.gbps : *c.gflops;
    bool again = false;
    for (std::size_t s = 1; s + 1 < sizes.size(); ++s)
      for (const auto& [ceiling, value] : rate[s]) {
        // the lambda below captures the name: older clangs (clang-tidy's) refuse a structured binding
        const std::string& name = ceiling;
        auto at = [&](std::size_t t) -> std::optional<double> {
          const auto it = rate[t].find(name);
          return it == rate[t].end() ? std::nullopt : std::optional(it->second);
        };
        if (!query::implausible(value, at(s - 1), at(s + 1))) continue;
        log::warn("ceiling {} at {} ({:.4g}) disagrees with both neighbouring sizes: measuring it again", name,
                  sizes[s].label, value);
        SizeState st;
        st.index = s;
        st.bound_default = spec::bind_config(run_.spec, spec::default_values(run_.spec), sizes[s].size);
        st.bytes = run_.ext.bytes ? spec::evaluate_number(run_.spec, *run_.ext.bytes, st.bound_default) : 0;
        measure_ceiling(st, name);
        again = true;
      }
    if (!again) return;
  }
}

}  // namespace tune::tuning

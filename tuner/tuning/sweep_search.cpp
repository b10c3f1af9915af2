// A GPU sweep driven by a search strategy (any --strategy but brute_force): each size is searched
// through SizeSearch (size_search.h), the one search path the replay shares: the strategy picks
// the configurations; each is compiled when first asked for (the binary cache first), verified,
// timed and stored like in the brute-force sweep (SweepEvaluator). The budget is --max-fevals per
// size and --time-limit on the run's wall clock. A re-run of the same command answers
// configurations already stored at a size from the database, without measuring them again.

#include <map>

#include "log/log.h"
#include "search/search.h"
#include "tuning/sweep.h"
#include "tuning/sweep_evaluator.h"

namespace tune::tuning {

namespace {

// What the strategy minimises: the time, or with --objective energy|edp the measured energy (or
// time x energy); nullopt for a failure or an energy the counter did not resolve.
std::optional<double> search_value(const store::Measurement& m, decision::Objective objective) {
  if (m.status != store::MeasurementStatus::ok || !m.objective) return std::nullopt;
  std::optional<decision::Estimate> energy;
  if (m.energy_j) energy = decision::Estimate{*m.energy_j, 0, 1};
  const auto v = decision::objective_estimate(objective, {{*m.objective, 0, 1}, energy});
  return v ? std::optional<double>(v->value) : std::nullopt;
}

}  // namespace

std::optional<double> Sweep::evaluate_guided(std::size_t c, SizeState& st) {
  GuidedTime& g = guided_time_;
  double idle_ms = 0;
  const auto idle = [&] {
    const auto ti = Clock::now();
    const bool did = states_.idle_work(st);
    idle_ms += ms_since(ti);
    return did;
  };
  if (!st.reference_ready)  // the first time: the reference, compiled while the first configurations were
    while (!kernels_.helpers_compiled() && idle()) {}
  const auto t0 = Clock::now();
  states_.ready(st);
  g.ready_s += ms_since(t0) / 1000.0;
  const std::size_t evaluation = g.ready + g.waited + g.inline_;
  const auto t1 = Clock::now();
  const double idle_before_ms = idle_ms;
  switch (kernels_.ensure(c, idle)) {
    case CompileAhead::Readiness::ready:
      ++g.ready;
      break;
    case CompileAhead::Readiness::hinted:
      ++g.waited;
      break;
    case CompileAhead::Readiness::not_hinted:
      ++g.inline_;
      break;
  }
  const double waited_ms = ms_since(t1) - (idle_ms - idle_before_ms);
  g.compile_s += waited_ms / 1000.0;
  g.idle_s += idle_ms / 1000.0;
  if (waited_ms >= 1 || idle_ms > 0)
    log::debug("evaluation {}: waited {:.0f} ms for its compile{}", evaluation, waited_ms,
               idle_ms > 0 ? log::format(", {:.0f} ms of other GPU work meanwhile", idle_ms) : "");
  const auto t2 = Clock::now();
  store::Measurement m = measure_and_store(c, st);
  g.measure_s += ms_since(t2) / 1000.0;
  return search_value(m, run_.o.objective);
}

bool Sweep::search_size(std::size_t s, SizeState& st) {
  // What an earlier run stored at this size answers without a measurement.
  std::map<std::size_t, std::optional<double>> stored;
  store::MeasurementFilter f;
  f.kernel = run_.kernel;
  f.device = run_.device();
  f.size = run_.sizes[s].label;
  f.space_hash = run_.space_hash;
  f.ok_only = false;
  for (const auto& m : run_.db.measurements(f))
    if (const auto it = run_.config_index.find(m.params); it != run_.config_index.end())
      stored[it->second] = search_value(m, run_.o.objective);

  SweepEvaluator ev(
      std::move(stored), [this, &st](std::size_t c) { return evaluate_guided(c, st); },
      [this] { return ms_since(run_.start) / 1000.0; });
  ev.on_prefetch([this](const std::vector<std::size_t>& configs) { kernels_.prefetch(configs); });
  ev.on_ready([this](std::size_t c) { return kernels_.compiled_now(c); });
  guided_time_ = {};
  const auto t0 = Clock::now();
  const SizeOutcome& done = search_->search(run_.sizes[s].size, ev);
  const GuidedTime& g = guided_time_;
  log::info(
      "{} at {}: search {:.2f} s: reference {:.2f} s, measuring {:.2f} s, waiting for compiles {:.2f} s ({} "
      "compiled ahead, {} hinted but not done, {} not hinted), clock warm-up and ceilings while waiting {:.2f} s, the "
      "strategy and the rest {:.2f} s",
      run_.kernel, run_.sizes[s].label, ms_since(t0) / 1000.0, g.ready_s, g.measure_s, g.compile_s, g.ready, g.waited,
      g.inline_, g.idle_s, ms_since(t0) / 1000.0 - g.ready_s - g.measure_s - g.compile_s - g.idle_s);
  const bool out_of_time = run_.o.time_limit_s && ev.elapsed_s() >= *run_.o.time_limit_s;
  if (out_of_time)
    log::warn("time limit of {} s reached at {}: stopping (a re-run resumes)", *run_.o.time_limit_s,
              run_.sizes[s].label);
  std::string from;
  for (const auto& n : done.seeded_from) from += (from.empty() ? "" : ", ") + n;
  log::info("{} at {}: {} evaluated {} configurations ({} measured){}{}", run_.kernel, run_.sizes[s].label,
            run_.o.strategy, done.evaluated.size(), ev.measured(),
            done.starts.empty() ? "" : ", starting from " + std::to_string(done.starts.size()) + " of " + from,
            done.best ? "; best " + run_.configs[*done.best].params : "");
  return !out_of_time;
}

}  // namespace tune::tuning

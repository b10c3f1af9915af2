// A GPU sweep driven by a search strategy (any --strategy but brute_force): each size is searched
// through SizeSearch (size_search.h), the one search path the replay shares: the strategy picks
// the configurations; each is compiled when first asked for (the binary cache first), verified,
// timed and stored like in the brute-force sweep (SweepEvaluator). The budget is --max-fevals per
// size and --time-limit on the run's wall clock. A re-run of the same command answers
// configurations already stored at a size from the database, without measuring them again.
#include <spdlog/spdlog.h>

#include <algorithm>
#include <cmath>
#include <functional>
#include <map>

#include "search/search.h"
#include "tuning/size_search.h"
#include "tuning/sweep.h"
#include "tuning/sweep_evaluator.h"

namespace tune::tuning {

Sweep::Readiness Sweep::ensure_compiled(std::size_t c, const std::function<bool()>& idle) {
  Compiled& k = configs_[c].compiled;
  if (k.settled()) return Readiness::ready;
  const Readiness was = ahead_.contains(c) ? Readiness::hinted : Readiness::not_hinted;
  if (was == Readiness::hinted) {
    if (pool_.withdraw(c)) {  // still queued behind other guesses: compile it here, now
      ahead_.erase(c);
      --pending_;
    } else {  // in progress (or done): wait for it, taking the others that finish first
      bool busy = static_cast<bool>(idle);
      while (ahead_.contains(c)) {
        if (busy && (busy = idle())) {  // other work while it compiles
          accept_finished();
          continue;
        }
        auto r = pool_.next();
        if (!r) break;
        --pending_;
        ahead_.erase(r->tag);
        accept(std::move(*r));
      }
      if (k.settled()) return was;
    }
  }
  auto req = request(c, kernel_, space_.config_values(c));
  if (!load_cached(c, req)) accept(compile::compile(req));
  return was;
}

bool Sweep::compiled_now(std::size_t c) {
  accept_finished();
  const Compiled& k = configs_[c].compiled;
  return k.settled();
}

void Sweep::accept_finished() {
  while (auto r = pool_.try_next()) {
    --pending_;
    ahead_.erase(r->tag);
    accept(std::move(*r));
  }
}

void Sweep::drop_guesses() {
  for (const std::uint64_t c : pool_.drop_queued()) ahead_.erase(c), --pending_;
}

void Sweep::prefetch(const std::vector<std::size_t>& configs) {
  accept_finished();
  drop_guesses();
  for (std::size_t c : configs) {
    const Compiled& k = configs_[c].compiled;
    if (k.settled() || ahead_.contains(c)) continue;
    auto req = request(c, kernel_, space_.config_values(c));
    if (load_cached(c, req)) continue;
    pool_.submit(std::move(req));
    ahead_.insert(c);
    ++pending_;
  }
}

std::optional<double> Sweep::evaluate_guided(std::size_t c, SizeState& st) {
  GuidedTime& g = guided_time_;
  double idle_ms = 0;
  const auto idle = [&] {
    const auto ti = Clock::now();
    const bool did = idle_work(st);
    idle_ms += ms_since(ti);
    return did;
  };
  if (!st.reference_ready)  // the first time: the reference, compiled while the first configurations were
    while (!helpers_compiled() && idle()) {}
  const auto t0 = Clock::now();
  ready_size(st);
  g.ready_s += ms_since(t0) / 1000.0;
  const std::size_t evaluation = g.ready + g.waited + g.inline_;
  const auto t1 = Clock::now();
  const double idle_before_ms = idle_ms;
  switch (ensure_compiled(c, idle)) {
    case Readiness::ready:
      ++g.ready;
      break;
    case Readiness::hinted:
      ++g.waited;
      break;
    case Readiness::not_hinted:
      ++g.inline_;
      break;
  }
  const double waited_ms = ms_since(t1) - (idle_ms - idle_before_ms);
  g.compile_s += waited_ms / 1000.0;
  g.idle_s += idle_ms / 1000.0;
  if (waited_ms >= 1 || idle_ms > 0)
    spdlog::debug("evaluation {}: waited {:.0f} ms for its compile{}", evaluation, waited_ms,
                  idle_ms > 0 ? fmt::format(", {:.0f} ms of other GPU work meanwhile", idle_ms) : "");
  const auto t2 = Clock::now();
  store::Measurement m = measure_and_store(c, st);
  g.measure_s += ms_since(t2) / 1000.0;
  return m.status == store::MeasurementStatus::ok ? m.objective : std::nullopt;
}

bool Sweep::search_size(std::size_t s, SizeState& st) {
  // What an earlier run stored at this size answers without a measurement.
  std::map<std::string, std::optional<double>> stored;
  store::MeasurementFilter f;
  f.kernel = kernel_;
  f.device = session_.device().name;
  f.size = sizes_[s].label;
  f.space_hash = space_hash_;
  f.ok_only = false;
  for (const auto& m : db_.measurements(f))
    stored[m.params] = m.status == store::MeasurementStatus::ok && m.objective ? m.objective : std::nullopt;

  SweepEvaluator ev(
      std::move(stored), [this](std::size_t c) -> const std::string& { return configs_[c].params; },
      [this, &st](std::size_t c) { return evaluate_guided(c, st); }, [this] { return ms_since(start_) / 1000.0; });
  ev.on_prefetch([this](const std::vector<std::size_t>& configs) { prefetch(configs); });
  ev.on_ready([this](std::size_t c) { return compiled_now(c); });
  guided_time_ = {};
  const auto t0 = Clock::now();
  const SizeOutcome& done = search_->search(sizes_[s].size, ev);
  const GuidedTime& g = guided_time_;
  spdlog::info(
      "{} at {}: search {:.2f} s: reference {:.2f} s, measuring {:.2f} s, waiting for compiles {:.2f} s ({} "
      "compiled ahead, {} hinted but not done, {} not hinted), clock warm-up and ceilings while waiting {:.2f} s, the "
      "strategy and the rest {:.2f} s",
      kernel_, sizes_[s].label, ms_since(t0) / 1000.0, g.ready_s, g.measure_s, g.compile_s, g.ready, g.waited,
      g.inline_, g.idle_s, ms_since(t0) / 1000.0 - g.ready_s - g.measure_s - g.compile_s - g.idle_s);
  const bool out_of_time = o_.time_limit_s && ev.elapsed_s() >= *o_.time_limit_s;
  if (out_of_time)
    spdlog::warn("time limit of {} s reached at {}: stopping (a re-run resumes)", *o_.time_limit_s, sizes_[s].label);
  std::string from;
  for (const auto& n : done.seeded_from) from += (from.empty() ? "" : ", ") + n;
  spdlog::info("{} at {}: {} evaluated {} configurations ({} measured){}{}", kernel_, sizes_[s].label, o_.strategy,
               done.evaluated.size(), ev.measured(),
               done.starts.empty() ? "" : ", starting from " + std::to_string(done.starts.size()) + " of " + from,
               done.best ? "; best " + configs_[*done.best].params : "");
  return !out_of_time;
}

}  // namespace tune::tuning

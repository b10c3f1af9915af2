// The race and the verdict at one size (decider.h).

#include <nlohmann/json.hpp>

#include <algorithm>
#include <limits>
#include <map>
#include <set>

#include "log/log.h"
#include "tuning/decider.h"

namespace tune::tuning {

namespace {

decision::Estimate estimate_of(const store::StoredMeasurement& m, decision::Statistic statistic) {
  std::vector<double> samples(m.samples_ms.begin(), m.samples_ms.end());
  return decision::estimate(*m.objective, samples, statistic);
}

// The measurement's extra with the first pass it replaces, and in how many CUDA contexts the
// re-measurement was made (its samples are the first context's).
std::string with_first_pass(const store::StoredMeasurement& m, std::size_t contexts) {
  nlohmann::ordered_json extra = nlohmann::ordered_json::parse(m.extra.empty() ? "{}" : m.extra);
  if (!extra.contains("first_pass"))
    extra["first_pass"] = {{"objective", *m.objective}, {"samples", m.samples_ms.size()}, {"run_id", m.run_id}};
  if (contexts > 1)
    extra["contexts"] = contexts;
  else
    extra.erase("contexts");
  return extra.dump();
}

}  // namespace

Decider::Decider(GpuRun& run, CompileAhead& kernels, SizeStates& states)
    : run_(run), kernels_(kernels), states_(states) {}

void Decider::decide(std::size_t s, SizeState& st) {
  decide_time(s, st);
  if (run_.energy) race_energy(s, st);
}

void Decider::decide_time(std::size_t s, SizeState& st) {
  const decision::Policy& policy = run_.policy();
  const std::string& device = run_.device();
  store::MeasurementFilter f;
  f.kernel = run_.kernel;
  f.device = device;
  f.size = run_.sizes[s].label;
  f.space_hash = run_.space_hash;
  f.with_samples = true;
  std::vector<store::StoredMeasurement> rows;
  for (auto& m : run_.db.measurements(f))
    if (m.objective && *m.objective > 0 && run_.config_index.count(m.params)) rows.push_back(std::move(m));
  if (rows.empty()) return;
  std::vector<decision::Entry> entries;
  for (std::size_t i = 0; i < rows.size(); ++i)
    entries.push_back({static_cast<std::int64_t>(i), estimate_of(rows[i], run_.rule.statistic)});
  double best_first = std::numeric_limits<double>::infinity();
  for (const auto& e : entries) best_first = std::min(best_first, e.estimate.value);
  const bool elsewhere = contexts_apply(st, best_first);  // wider: see policy.other_contexts
  std::vector<std::size_t> pick =
      decision::contenders(entries, run_.rule, elsewhere ? policy.contender_widen_elsewhere : policy.contender_widen,
                           elsewhere ? policy.contenders_elsewhere : policy.contenders);
  // and what the tie-break may use at the size decided before it
  std::size_t from_neighbour = 0;
  if (const auto prev = s > 0 ? eligible_.find(s - 1) : eligible_.end(); prev != eligible_.end())
    for (std::size_t i = 0; i < rows.size(); ++i)
      if (prev->second.contains(run_.config_index.at(rows[i].params)) &&
          std::find(pick.begin(), pick.end(), i) == pick.end())
        pick.push_back(i), ++from_neighbour;

  // Launches of the contenders that can run in this process, on every placement (where the other
  // contexts decide too, on as many as each of them: policy.other_placements).
  states_.add_placements(st, states_.placements_of(buffer_bytes(st.args->specs())));  // those not made with the state
  std::vector<run::ArgSet*> sets = SizeStates::own_placements(st);
  if (elsewhere && sets.size() > policy.other_placements) sets.resize(policy.other_placements);
  std::vector<std::size_t> runnable;                 // indices into rows
  std::vector<std::vector<run::LaunchFn>> launches;  // per contender, one per placement
  std::vector<spec::Geometry> shapes(pick.size());
  for (std::size_t i : pick) {
    const std::size_t c = run_.config_index.at(rows[i].params);
    kernels_.ensure(c);
    if (!run_.configs[c].compiled.kernel || run_.configs[c].compiled.faulted) continue;
    spec::Geometry& g = shapes[runnable.size()];
    g = spec::geometry(run_.spec, spec::bind_config(run_.spec, run_.space.config_values(c), run_.sizes[s].size));
    launches.push_back(SizeStates::placements(*run_.configs[c].compiled.kernel, g, sets));
    runnable.push_back(i);
  }

  store::Decision d;
  d.run_id = run_.run_id;
  d.kernel = run_.kernel;
  d.device = device;
  d.size = run_.sizes[s].label;
  d.statistic = run_.rule.statistic;
  d.tie_margin = run_.rule.tie_margin;
  std::vector<decision::Entry> decided;
  if (runnable.size() >= 2) {
    const auto t0 = Clock::now();
    // after each round from the minimum on: out of the race when outpaced by the best; stop once
    // every one still racing is known within policy.race_noise
    auto race = [&](int rounds, std::span<const run::Timing> so_far, std::vector<bool>& racing) {
      if (rounds < policy.race_min_rounds) return true;
      std::vector<std::optional<decision::Estimate>> e(so_far.size());
      std::optional<decision::Estimate> best;
      for (std::size_t k = 0; k < so_far.size(); ++k) {
        if (!so_far[k].ok() || so_far[k].samples_ms.empty()) continue;
        e[k] = decision::estimate(so_far[k].samples_ms, run_.rule.statistic);
        if (!best || e[k]->value < best->value) best = e[k];
      }
      bool settled = true;
      for (std::size_t k = 0; k < so_far.size(); ++k) {
        if (!racing[k] || !e[k]) continue;
        if (decision::outpaced(*e[k], *best, run_.rule))
          racing[k] = false;
        else
          settled = settled && e[k]->relative() <= policy.race_noise;
      }
      return !settled;
    };
    auto timings = run::measure_interleaved(run_.session, launches, run_.timing, policy.race_max_rounds,
                                            static_cast<int>(sets.size()), race);
    run_.count.decide_ms += ms_since(t0);
    for (const auto& t : timings) {
      run_.count.timed_ms += t.timed_ms;
      d.rounds =
          std::max(d.rounds, static_cast<std::int64_t>(t.samples_ms.size() / sets.size()));  // a sample a placement
    }
    std::vector<std::size_t> measured;  // indices into runnable
    std::vector<decision::Estimate> here;
    for (std::size_t k = 0; k < runnable.size(); ++k) {
      const run::Timing& t = timings[k];
      store::StoredMeasurement& m = rows[runnable[k]];
      if (!t.ok()) {
        log::warn("{} at {}: the re-measurement failed ({}); its first pass stands", m.params, d.size,
                  t.status.message);
        if (t.status.sticky()) {
          run_.configs[run_.config_index.at(m.params)].compiled.faulted = true;
          states_.recover(st);
        }
        continue;
      }
      measured.push_back(k);
      here.push_back(decision::estimate(t.samples_ms, run_.rule.statistic));
    }
    // the same contenders in the other contexts, where the size qualifies (contexts_apply)
    std::vector<run::LoadedKernel*> kernels;
    std::vector<spec::Geometry> measured_shapes;
    for (std::size_t i = 0; i < measured.size(); ++i) {
      kernels.push_back(run_.configs[run_.config_index.at(rows[runnable[measured[i]]].params)].compiled.kernel.get());
      measured_shapes.push_back(shapes[measured[i]]);
    }
    std::vector<std::vector<decision::Estimate>> contexts = {here};
    const auto t1 = Clock::now();
    if (elsewhere)
      for (auto& row : measure_elsewhere(st, kernels, measured_shapes)) contexts.push_back(std::move(row));
    run_.count.decide_ms += ms_since(t1);
    if (contexts.size() > 1 && log::enabled(log::Level::debug))
      for (std::size_t i = 0; i < measured.size(); ++i) {
        std::string per_context;  // in each context, its value over that context's first contender
        for (const auto& row : contexts) per_context += log::format(" {:.4f}", row[i].value / row[0].value);
        log::debug("{} at {}: config {} in {} contexts, each over its first contender:{}", run_.kernel, d.size,
                   rows[runnable[measured[i]]].config_id, contexts.size(), per_context);
      }
    std::vector<decision::Estimate> earlier;  // the contenders' first passes (policy.first_pass_weight)
    earlier.reserve(measured.size());
    for (const std::size_t k : measured) earlier.push_back(entries[runnable[k]].estimate);
    const std::vector<decision::Estimate> combined =
        decision::across_moments(decision::across_contexts(contexts), earlier, policy.first_pass_weight);
    for (std::size_t i = 0; i < measured.size(); ++i) {
      const std::size_t k = measured[i];
      const run::Timing& t = timings[k];
      store::StoredMeasurement& m = rows[runnable[k]];
      store::Measurement again = m;
      again.run_id = run_.run_id;
      again.samples_ms.assign(t.samples_ms.begin(), t.samples_ms.end());
      again.summary.reset();
      const decision::Estimate e = combined[i];
      again.objective = e.value;
      if (st.bytes > 0) again.gbps = st.bytes / e.value / 1e6;
      if (st.flops > 0) again.gflops = st.flops / e.value / 1e6;
      again.extra = with_first_pass(m, contexts.size());
      again.measured_at.clear();
      run_.db.record(again);
      decided.push_back({static_cast<std::int64_t>(runnable[k]), e});
    }
  }
  if (decided.empty()) decided.push_back(entries.at(pick.at(0)));  // nothing re-measured: the best as it stands
  const decision::Verdict v = decision::decide(decided, run_.rule);
  std::sort(decided.begin(), decided.end(),
            [](const decision::Entry& a, const decision::Entry& b) { return a.estimate.value < b.estimate.value; });
  for (const auto& e : decided) {
    const bool tied = std::find(v.tied.begin(), v.tied.end(), e.id) != v.tied.end();
    d.candidates.push_back({rows[static_cast<std::size_t>(e.id)].config_id, e.estimate.value, e.estimate.half_width,
                            static_cast<std::int64_t>(e.estimate.samples), tied});
  }
  d.winner_id = rows[static_cast<std::size_t>(v.winner)].config_id;
  d.noise = v.noise;
  run_.db.record_decision(d);
  std::vector<std::pair<std::int64_t, double>> tied_values;
  for (const std::int64_t id : v.tied)
    for (const auto& e : decided)
      if (e.id == id) tied_values.emplace_back(id, e.estimate.value);
  std::set<std::size_t>& usable = eligible_[s];
  usable.clear();
  for (const std::int64_t id : decision::eligible(tied_values, run_.rule.tie_margin, v.noise))
    usable.insert(run_.config_index.at(rows[static_cast<std::size_t>(id)].params));
  log::debug(
      "{} at {}: {} contenders ({} of them eligible at the size before) measured again over {} rounds on {} "
      "placements; winner {} ({} tied, noise {:.2f}%)",
      run_.kernel, d.size, decided.size(), from_neighbour, d.rounds, sets.size(),
      rows[static_cast<std::size_t>(v.winner)].params, v.tied.size() - 1, 100.0 * v.noise);
}

}  // namespace tune::tuning

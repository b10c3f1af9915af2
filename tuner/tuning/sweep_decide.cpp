// The decision at one size of a GPU sweep (decision/decision.h): once every configuration of the
// size is measured (brute force) or the strategy is done (guided), the contenders, those within
// reach of the best, are measured again, interleaved round robin (run::measure_interleaved) so that
// drift hits all of them alike, on up to kPlacements placements of the arguments, the clearly
// slower leaving the race after each round (sweep.h); their measurements are replaced by the
// re-measurement, its value weighing the first pass by kFirstPassWeight (the first pass is kept in
// `extra`), and the verdict is stored
// (store::Decision). Then the ceilings: one that disagrees implausibly with its neighbouring sizes
// is measured again before the table prints it.
#include <spdlog/spdlog.h>

#include <nlohmann/json.hpp>

#include <algorithm>
#include <limits>
#include <map>
#include <set>

#include "query/table.h"
#include "tuning/sweep.h"

namespace tune::tuning {

namespace {

decision::Estimate estimate_of(const store::StoredMeasurement& m, decision::Statistic statistic) {
  std::vector<double> samples(m.samples_ms.begin(), m.samples_ms.end());
  return decision::estimate(*m.objective, samples, statistic);
}

// The measurement's extra with the first pass it replaces, and in how many CUDA contexts the
// re-measurement was made (its samples are the first context's; sweep.h: kOtherContexts).
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

void Sweep::decide_size(std::size_t s, SizeState& st) {
  const std::string& device = session_.device().name;
  store::MeasurementFilter f;
  f.kernel = kernel_;
  f.device = device;
  f.size = sizes_[s].label;
  f.space_hash = space_hash_;
  f.with_samples = true;
  std::vector<store::StoredMeasurement> rows;
  for (auto& m : db_.measurements(f))
    if (m.objective && *m.objective > 0 && config_index_.count(m.params)) rows.push_back(std::move(m));
  if (rows.empty()) return;
  std::vector<decision::Entry> entries;
  for (std::size_t i = 0; i < rows.size(); ++i)
    entries.push_back({static_cast<std::int64_t>(i), estimate_of(rows[i], rule_.statistic)});
  double best_first = std::numeric_limits<double>::infinity();
  for (const auto& e : entries) best_first = std::min(best_first, e.estimate.value);
  const bool elsewhere = other_contexts_apply(st, best_first);  // wider: see kOtherContexts
  std::vector<std::size_t> pick =
      decision::contenders(entries, rule_, elsewhere ? kContenderWidenElsewhere : kContenderWiden,
                           elsewhere ? kMaxContendersElsewhere : kMaxContenders);
  // and what the tie-break may use at the size decided before it (sweep.h: eligible_)
  std::size_t from_neighbour = 0;
  if (const auto prev = s > 0 ? eligible_.find(s - 1) : eligible_.end(); prev != eligible_.end())
    for (std::size_t i = 0; i < rows.size(); ++i)
      if (prev->second.contains(rows[i].params) && std::find(pick.begin(), pick.end(), i) == pick.end())
        pick.push_back(i), ++from_neighbour;

  // Launches of the contenders that can run in this process, on every placement (where the other
  // contexts decide too, on as many as each of them: kOtherPlacements).
  add_placements(st, placements_of(buffer_bytes(st.args->specs())));  // those not made with the state
  std::vector<run::ArgSet*> sets = own_placements(st);
  if (elsewhere && sets.size() > kOtherPlacements) sets.resize(kOtherPlacements);
  std::vector<std::size_t> runnable;                 // indices into rows
  std::vector<std::vector<run::LaunchFn>> launches;  // per contender, one per placement
  std::vector<Geometry> shapes(pick.size());
  for (std::size_t i : pick) {
    const std::size_t c = config_index_.at(rows[i].params);
    ensure_compiled(c);
    if (!configs_[c].compiled.kernel || configs_[c].compiled.faulted) continue;
    Geometry& g = shapes[runnable.size()];
    g = geometry(spec_, bind_config(spec_, space_.config_values(c), sizes_[s].size));
    launches.push_back(placements(*configs_[c].compiled.kernel, g, sets));
    runnable.push_back(i);
  }

  store::Decision d;
  d.run_id = run_id_;
  d.kernel = kernel_;
  d.device = device;
  d.size = sizes_[s].label;
  d.statistic = rule_.statistic;
  d.tie_margin = rule_.tie_margin;
  std::vector<decision::Entry> decided;
  if (runnable.size() >= 2) {
    const auto t0 = Clock::now();
    // after each round from the minimum on: out of the race when outpaced by the best; stop once
    // every one still racing is known within kDecisionNoise
    auto race = [&](int rounds, std::span<const run::Timing> so_far, std::vector<bool>& racing) {
      if (rounds < kDecisionMinRounds) return true;
      std::vector<std::optional<decision::Estimate>> e(so_far.size());
      std::optional<decision::Estimate> best;
      for (std::size_t k = 0; k < so_far.size(); ++k) {
        if (!so_far[k].ok() || so_far[k].samples_ms.empty()) continue;
        e[k] = decision::estimate(so_far[k].samples_ms, rule_.statistic);
        if (!best || e[k]->value < best->value) best = e[k];
      }
      bool settled = true;
      for (std::size_t k = 0; k < so_far.size(); ++k) {
        if (!racing[k] || !e[k]) continue;
        if (decision::outpaced(*e[k], *best, rule_))
          racing[k] = false;
        else
          settled = settled && e[k]->relative() <= kDecisionNoise;
      }
      return !settled;
    };
    auto timings =
        run::measure_interleaved(session_, launches, timing_, kDecisionMaxRounds, static_cast<int>(sets.size()), race);
    count_.decide_ms += ms_since(t0);
    for (const auto& t : timings) {
      count_.timed_ms += t.timed_ms;
      d.rounds =
          std::max(d.rounds, static_cast<std::int64_t>(t.samples_ms.size() / sets.size()));  // a sample a placement
    }
    std::vector<std::size_t> measured;  // indices into runnable
    std::vector<decision::Estimate> here;
    for (std::size_t k = 0; k < runnable.size(); ++k) {
      const run::Timing& t = timings[k];
      store::StoredMeasurement& m = rows[runnable[k]];
      if (!t.ok()) {
        spdlog::warn("{} at {}: the re-measurement failed ({}); its first pass stands", m.params, d.size,
                     t.status.message);
        if (t.status.sticky()) {
          configs_[config_index_.at(m.params)].compiled.faulted = true;
          recover(st);
        }
        continue;
      }
      measured.push_back(k);
      here.push_back(decision::estimate(t.samples_ms, rule_.statistic));
    }
    // the same contenders in the other contexts, where the size qualifies (sweep.h)
    std::vector<run::LoadedKernel*> kernels;
    std::vector<Geometry> measured_shapes;
    for (std::size_t i = 0; i < measured.size(); ++i) {
      kernels.push_back(configs_[config_index_.at(rows[runnable[measured[i]]].params)].compiled.kernel.get());
      measured_shapes.push_back(shapes[measured[i]]);
    }
    std::vector<std::vector<decision::Estimate>> contexts = {here};
    const auto t1 = Clock::now();
    if (elsewhere)
      for (auto& row : measure_in_other_contexts(st, kernels, measured_shapes)) contexts.push_back(std::move(row));
    count_.decide_ms += ms_since(t1);
    if (contexts.size() > 1 && spdlog::should_log(spdlog::level::debug))
      for (std::size_t i = 0; i < measured.size(); ++i) {
        std::string per_context;  // in each context, its value over that context's first contender
        for (const auto& row : contexts) per_context += fmt::format(" {:.4f}", row[i].value / row[0].value);
        spdlog::debug("{} at {}: config {} in {} contexts, each over its first contender:{}", kernel_, d.size,
                      rows[runnable[measured[i]]].config_id, contexts.size(), per_context);
      }
    std::vector<decision::Estimate> earlier;  // the contenders' first passes (sweep.h: kFirstPassWeight)
    earlier.reserve(measured.size());
    for (const std::size_t k : measured) earlier.push_back(entries[runnable[k]].estimate);
    const std::vector<decision::Estimate> combined =
        decision::across_moments(decision::across_contexts(contexts), earlier, kFirstPassWeight);
    for (std::size_t i = 0; i < measured.size(); ++i) {
      const std::size_t k = measured[i];
      const run::Timing& t = timings[k];
      store::StoredMeasurement& m = rows[runnable[k]];
      store::Measurement again = m;
      again.run_id = run_id_;
      again.samples_ms.assign(t.samples_ms.begin(), t.samples_ms.end());
      again.summary.reset();
      const decision::Estimate e = combined[i];
      again.objective = e.value;
      if (st.bytes > 0) again.gbps = st.bytes / e.value / 1e6;
      if (st.flops > 0) again.gflops = st.flops / e.value / 1e6;
      again.extra = with_first_pass(m, contexts.size());
      again.measured_at.clear();
      db_.record(again);
      decided.push_back({static_cast<std::int64_t>(runnable[k]), e});
    }
  }
  if (decided.empty()) decided.push_back(entries.at(pick.at(0)));  // nothing re-measured: the best as it stands
  const decision::Verdict v = decision::decide(decided, rule_);
  std::sort(decided.begin(), decided.end(),
            [](const decision::Entry& a, const decision::Entry& b) { return a.estimate.value < b.estimate.value; });
  for (const auto& e : decided) {
    const bool tied = std::find(v.tied.begin(), v.tied.end(), e.id) != v.tied.end();
    d.candidates.push_back({rows[static_cast<std::size_t>(e.id)].config_id, e.estimate.value, e.estimate.half_width,
                            static_cast<std::int64_t>(e.estimate.samples), tied});
  }
  d.winner_id = rows[static_cast<std::size_t>(v.winner)].config_id;
  d.noise = v.noise;
  db_.record_decision(d);
  std::vector<std::pair<std::int64_t, double>> tied_values;
  for (const std::int64_t id : v.tied)
    for (const auto& e : decided)
      if (e.id == id) tied_values.emplace_back(id, e.estimate.value);
  std::set<std::string>& usable = eligible_[s];
  usable.clear();
  for (const std::int64_t id : decision::eligible(tied_values, rule_.tie_margin, v.noise))
    usable.insert(rows[static_cast<std::size_t>(id)].params);
  spdlog::debug(
      "{} at {}: {} contenders ({} of them eligible at the size before) measured again over {} rounds on {} "
      "placements; winner {} ({} tied, noise {:.2f}%)",
      kernel_, d.size, decided.size(), from_neighbour, d.rounds, sets.size(),
      rows[static_cast<std::size_t>(v.winner)].params, v.tied.size() - 1, 100.0 * v.noise);
}

// A ceiling whose rate is implausible against both neighbouring sizes of this run (query::implausible)
// is measured again, up to twice; the table marks one that still is.
void Sweep::remeasure_implausible_ceilings() {
  const std::string& device = session_.device().name;
  for (int attempt = 0; attempt < 2; ++attempt) {
    std::vector<std::map<std::string, double>> rate(sizes_.size());
    for (std::size_t s = 0; s < sizes_.size(); ++s)
      for (const auto& c : db_.ceilings(device, sizes_[s].label, run_id_))
        if (c.gbps || c.gflops) rate[s][c.name] = c.gbps ? *c.gbps : *c.gflops;
    bool again = false;
    for (std::size_t s = 1; s + 1 < sizes_.size(); ++s)
      for (const auto& [ceiling, value] : rate[s]) {
        // the lambda below captures the name: older clangs (clang-tidy's) refuse a structured binding
        const std::string& name = ceiling;
        auto at = [&](std::size_t t) -> std::optional<double> {
          const auto it = rate[t].find(name);
          return it == rate[t].end() ? std::nullopt : std::optional(it->second);
        };
        if (!query::implausible(value, at(s - 1), at(s + 1))) continue;
        spdlog::warn("ceiling {} at {} ({:.4g}) disagrees with both neighbouring sizes: measuring it again", name,
                     sizes_[s].label, value);
        SizeState st;
        st.index = s;
        st.bound_default = bind_config(spec_, default_values(spec_), sizes_[s].size);
        st.bytes = ext_.bytes ? evaluate_number(spec_, *ext_.bytes, st.bound_default) : 0;
        measure_ceiling(st, name);
        again = true;
      }
    if (!again) return;
  }
}

}  // namespace tune::tuning

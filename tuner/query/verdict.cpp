#include "query/verdict.h"

#include <algorithm>
#include <limits>
#include <map>

namespace tune::query {

namespace {

// Its objective's estimate; nullopt where the objective needs an energy it lacks.
std::optional<Contender> contender(const store::StoredMeasurement& m, decision::Statistic statistic,
                                   decision::Objective objective) {
  Contender c;
  c.config_id = m.config_id;
  c.params = m.params;
  std::vector<double> samples(m.samples_ms.begin(), m.samples_ms.end());
  const double value = m.objective ? *m.objective : (m.summary ? m.summary->median : 0);
  const decision::Estimate time = decision::estimate(value, samples, statistic);
  c.time_ms = time.value;
  c.time_hw_ms = time.half_width;
  c.energy_j = m.energy_j;
  c.energy_hw_j = m.energy_hw_j;
  c.power_w = m.power_w;
  c.energy_raced = m.energy_j && m.extra.find("\"energy_rounds\"") != std::string::npos;
  std::optional<decision::Estimate> energy;
  if (m.energy_j) energy = decision::Estimate{*m.energy_j, m.energy_hw_j.value_or(0), 1};
  const auto e = decision::objective_estimate(objective, {time, energy});
  if (!e) return std::nullopt;
  c.estimate = *e;
  c.gbps = m.gbps;
  c.gflops = m.gflops;
  c.run_id = m.run_id;
  return c;
}

// The stored decision, when it still holds: no measurement at the size is newer than it (a later
// run measured nothing there) and every tied configuration is still stored. The decision ranks the
// contenders as re-measured side by side; the other configurations' single measurements only
// chose the contenders (near the L2's capacity a measurement carries what ran before it: the
// first measurements read up to 5% faster than the same configurations re-measured).
bool apply_decision(const store::Decision& d, const std::string& newest, SizeVerdict& v) {
  if (v.all.empty() || newest > d.decided_at) return false;
  std::map<std::int64_t, const Contender*> by_id;
  for (const auto& c : v.all) by_id[c.config_id] = &c;
  std::vector<Contender> tied;
  for (const auto& c : d.candidates) {
    if (!c.tied) continue;
    const auto it = by_id.find(c.config_id);
    if (it == by_id.end()) return false;
    tied.push_back(*it->second);
    tied.back().estimate = decision::Estimate{c.value, c.half_width, static_cast<std::size_t>(c.samples)};
    tied.back().time_ms = c.value;
    tied.back().time_hw_ms = c.half_width;
  }
  if (tied.empty() || tied.front().config_id != d.winner_id) return false;
  v.tied = std::move(tied);
  v.noise = d.noise;
  v.tie_margin = d.tie_margin;
  v.remeasured = true;
  v.rounds = d.rounds;
  return true;
}

// `raced_only`: only the contenders of an energy race decide (decider.h: race_energy), as a time
// decision rests on its race: the first passes of the others were taken at other moments.
void decide_from_samples(const decision::Rule& rule, SizeVerdict& v, bool raced_only = false) {
  std::vector<decision::Entry> entries;
  for (std::size_t i = 0; i < v.all.size(); ++i)
    if (!raced_only || v.all[i].energy_raced) entries.push_back({static_cast<std::int64_t>(i), v.all[i].estimate});
  const auto verdict = decision::decide(entries, rule);
  for (std::int64_t i : verdict.tied) v.tied.push_back(v.all[static_cast<std::size_t>(i)]);
  v.noise = verdict.noise;
  v.tie_margin = rule.tie_margin;
}

}  // namespace

double SizeVerdict::throughput() const {
  const Contender& c = used();
  if (c.gbps) return *c.gbps;
  if (c.gflops) return *c.gflops;
  return c.time_ms > 0 ? sizes::Size::parse_label(size).elements() / c.time_ms : 0;
}

std::vector<SizeVerdict> verdicts(store::Store& db, const std::string& kernel, const std::string& device,
                                  const decision::Rule& rule, decision::Objective objective) {
  store::MeasurementFilter f;
  f.kernel = kernel;
  f.device = device;
  f.with_samples = true;
  std::map<std::string, std::vector<store::StoredMeasurement>> by_size;
  for (auto& m : db.measurements(f))
    if (m.objective || m.summary) by_size[m.size.label()].push_back(std::move(m));
  std::map<std::string, store::Decision> decided;
  for (auto& d : db.decisions(kernel, device)) decided[d.size] = std::move(d);

  std::vector<SizeVerdict> out;
  for (const auto& size : db.sizes(kernel, device)) {
    const auto it = by_size.find(size);
    if (it == by_size.end()) continue;  // only failures there
    SizeVerdict v;
    v.size = size;
    const auto d = decided.find(size);
    const decision::Statistic statistic = d != decided.end() ? d->second.statistic : rule.statistic;
    for (const auto& m : it->second)
      if (auto c = contender(m, statistic, objective)) v.all.push_back(std::move(*c));
    std::erase_if(v.all, [](const Contender& c) { return !(c.estimate.value > 0); });
    if (v.all.empty()) continue;
    std::stable_sort(v.all.begin(), v.all.end(),
                     [](const Contender& a, const Contender& b) { return a.estimate.value < b.estimate.value; });
    v.candidates = v.all.size();
    std::string newest;
    for (const auto& m : it->second) newest = std::max(newest, m.measured_at);
    const bool raced = objective != decision::Objective::time &&
                       std::any_of(v.all.begin(), v.all.end(), [](const Contender& c) { return c.energy_raced; });
    if (objective != decision::Objective::time || d == decided.end() || !apply_decision(d->second, newest, v))
      decide_from_samples(rule, v, raced);
    out.push_back(std::move(v));
  }
  // The tie-break may use a tied configuration only within the margin of the winner's value, and
  // within the size's noise (decision::eligible).
  std::vector<std::vector<std::int64_t>> tied(out.size());
  std::vector<std::map<std::int64_t, double>> relative(out.size());  // value over the size's best
  for (std::size_t s = 0; s < out.size(); ++s) {
    std::vector<std::pair<std::int64_t, double>> values;
    for (const auto& c : out[s].tied) values.emplace_back(c.config_id, c.estimate.value);
    tied[s] = decision::eligible(values, out[s].tie_margin, out[s].noise);
    // for energy, the tie-break prefers the faster in time: energies within the tie margin do not
    // repeat from run to run, times do
    if (objective == decision::Objective::energy) {
      double fastest = std::numeric_limits<double>::infinity();
      for (const auto& c : out[s].all)
        if (c.time_ms > 0) fastest = std::min(fastest, c.time_ms);
      for (const auto& c : out[s].all) relative[s].emplace(c.config_id, c.time_ms > 0 ? c.time_ms / fastest : 1.0);
      continue;
    }
    const double best = out[s].all.front().estimate.value;  // sorted, positive
    for (const auto& c : out[s].all) relative[s].emplace(c.config_id, c.estimate.value / best);
  }
  const auto pick = decision::select_across_sizes(tied, relative);
  for (std::size_t s = 0; s < out.size(); ++s) out[s].chosen = pick[s].value_or(0);
  return out;
}

std::optional<SingleBest> single_best(const std::vector<SizeVerdict>& v) {
  std::vector<std::vector<std::pair<std::int64_t, double>>> values(v.size());
  std::map<std::int64_t, std::string> params;
  for (std::size_t s = 0; s < v.size(); ++s)
    for (const auto& c : v[s].all) {
      values[s].emplace_back(c.config_id, c.estimate.value);
      params.emplace(c.config_id, c.params);
    }
  const auto sb = decision::single_best(values);
  if (!sb) return std::nullopt;
  SingleBest out;
  out.params = params[sb->id];
  for (std::size_t s = 0; s < v.size(); ++s)
    for (const auto& c : v[s].all)
      if (c.config_id == sb->id) out.loss.push_back(c.estimate.value / v[s].used().estimate.value);
  return out;
}

}  // namespace tune::query

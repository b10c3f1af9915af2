// The energy race at one size (decider.h: race_energy).
#include <spdlog/spdlog.h>

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>
#include <optional>

#include "tuning/decider.h"

namespace tune::tuning {

namespace {

// Rounds of the energy race: the second in reverse order; each contender is measured between two
// windows of the race's reference.
constexpr int kEnergyRounds = 2;

}  // namespace

void Decider::race_energy(std::size_t s, SizeState& st) {
  const decision::Policy& policy = run_.policy();
  store::MeasurementFilter f;
  f.kernel = run_.kernel;
  f.device = run_.device();
  f.size = run_.sizes[s].label;
  f.space_hash = run_.space_hash;
  f.with_samples = true;  // a measurement is written back whole
  std::vector<store::StoredMeasurement> rows;
  for (auto& m : run_.db.measurements(f))
    if (m.objective && m.energy_j && run_.config_index.count(m.params)) rows.push_back(std::move(m));
  if (rows.size() < 2) return;
  std::sort(rows.begin(), rows.end(), [](const auto& a, const auto& b) { return *a.energy_j < *b.energy_j; });
  const double reach = *rows.front().energy_j * (1 + policy.energy_widen);
  std::erase_if(rows, [&](const auto& m) { return *m.energy_j > reach; });
  if (rows.size() > policy.energy_contenders) rows.resize(policy.energy_contenders);
  if (rows.size() < 2) return;

  const std::vector<run::ArgSet*> sets = SizeStates::own_placements(st);
  std::vector<std::size_t> runnable;  // indices into rows
  std::vector<run::LaunchFn> launches;
  std::vector<spec::Geometry> shapes(rows.size());
  for (std::size_t i = 0; i < rows.size(); ++i) {
    const std::size_t c = run_.config_index.at(rows[i].params);
    kernels_.ensure(c);
    if (!run_.configs[c].compiled.kernel || run_.configs[c].compiled.faulted) continue;
    shapes[i] =
        spec::geometry(run_.spec, spec::bind_config(run_.spec, run_.space.config_values(c), run_.sizes[s].size));
    launches.push_back(SizeStates::placements(*run_.configs[c].compiled.kernel, shapes[i], sets).at(0));
    runnable.push_back(i);
  }
  if (runnable.size() < 2) return;
  // Each contender's window is bracketed by two windows of the reference (the least first-pass
  // energy, runnable[0]); its figure is its ratio to the mean of the two, so the board's drift
  // over the race (its power rises as it warms) cancels, times the reference's mean over the race.
  const auto t0 = Clock::now();
  bool stop = false;
  auto window = [&](std::size_t k) -> std::optional<run::EnergyReading> {
    const store::StoredMeasurement& m = rows[runnable[k]];
    run::LaunchStatus status;
    run::EnergyReading r = run_.energy->measure(launches[k], *m.objective, 0, status, policy.energy_race_updates);
    if (!status.ok()) {
      spdlog::warn("{} at {}: the energy race failed ({}); its first pass stands", m.params, f.size.value(),
                   status.message);
      if (status.sticky()) {
        run_.configs[run_.config_index.at(m.params)].compiled.faulted = true;
        stop = true;
      }
      return std::nullopt;
    }
    if (!r.resolved) return std::nullopt;
    return r;
  };
  struct Ratios {
    std::vector<double> energy, power;
  };
  std::vector<Ratios> ratios(runnable.size());
  std::vector<run::EnergyReading> refs;
  for (int round = 0; round < kEnergyRounds && !stop; ++round) {
    std::optional<run::EnergyReading> before = window(0);
    if (before) refs.push_back(*before);
    for (std::size_t j = 1; j < runnable.size() && !stop; ++j) {
      const std::size_t k = round % 2 == 0 ? j : runnable.size() - j;
      const std::optional<run::EnergyReading> mine = window(k);
      std::optional<run::EnergyReading> after = stop ? std::nullopt : window(0);
      if (after) refs.push_back(*after);
      if (mine && before && after) {
        const double e = (before->energy.joules + after->energy.joules) / 2;
        const double w = (before->power.watts + after->power.watts) / 2;
        if (e > 0 && w > 0) {
          ratios[k].energy.push_back(mine->energy.joules / e);
          ratios[k].power.push_back(mine->power.watts / w);
        }
      }
      before = std::move(after);
    }
  }
  if (stop) {
    states_.recover(st);
    return;
  }
  run_.count.decide_ms += ms_since(t0);
  if (refs.size() < 2) return;
  // The reference's figure is its mean over the race; each window of it, relative to that mean,
  // is a sample of its ratio (1 on average), as a contender's windows are of its own.
  std::vector<double> ref_j, ref_w;
  for (const auto& r : refs) {
    ref_j.push_back(r.energy.joules);
    ref_w.push_back(r.power.watts);
  }
  const double level_j = decision::estimate(ref_j, decision::Statistic::mean).value;
  const double level_w = decision::estimate(ref_w, decision::Statistic::mean).value;
  for (std::size_t i = 0; i < refs.size(); ++i) {
    ratios[0].energy.push_back(ref_j[i] / level_j);
    ratios[0].power.push_back(ref_w[i] / level_w);
  }
  for (std::size_t k = 0; k < runnable.size(); ++k) {
    if (ratios[k].energy.empty()) continue;
    const store::StoredMeasurement& m = rows[runnable[k]];
    store::Measurement again = m;
    // the time's relative interval (measured once, in the time race)
    const double time_rel =
        m.summary && m.summary->count > 1 && *m.objective > 0
            ? decision::estimate(std::vector<double>(m.samples_ms.begin(), m.samples_ms.end()), run_.rule.statistic)
                  .relative()
            : 0;
    const decision::Estimate ratio_j = decision::estimate(ratios[k].energy, decision::Statistic::mean);
    const decision::Estimate ratio_w = decision::estimate(ratios[k].power, decision::Statistic::mean);
    again.energy_j = ratio_j.value * level_j;
    again.power_w = ratio_w.value * level_w;
    again.energy_hw_j = *again.energy_j * std::hypot(ratio_j.relative(), time_rel);
    again.power_hw_w = ratio_w.half_width * level_w;
    nlohmann::ordered_json extra = nlohmann::ordered_json::parse(m.extra.empty() ? "{}" : m.extra);
    if (!extra.contains("energy_first_pass")) extra["energy_first_pass"] = {{"energy_j", *m.energy_j}};
    extra["energy_rounds"] = ratios[k].energy.size();
    extra["energy_reference"] = k == 0 ? "is the race's reference" : rows[runnable[0]].params;
    again.extra = extra.dump();
    again.measured_at.clear();
    run_.db.record(again);
  }
  spdlog::debug("{} at {}: {} energy contenders measured again in {} rounds", run_.kernel, f.size.value(),
                runnable.size(), kEnergyRounds);
}

}  // namespace tune::tuning

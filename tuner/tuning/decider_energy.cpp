// The energy race at one size (decider.h: race_energy).
#include <spdlog/spdlog.h>

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>

#include "tuning/decider.h"

namespace tune::tuning {

namespace {

// Rounds of the energy race: the second in reverse order, so that a drift of the board's power
// over the race (it warms up) weighs on every contender alike.
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
  const auto t0 = Clock::now();
  std::vector<std::vector<run::EnergyReading>> readings(runnable.size());
  for (int round = 0; round < kEnergyRounds; ++round)
    for (std::size_t j = 0; j < runnable.size(); ++j) {
      const std::size_t k = round % 2 == 0 ? j : runnable.size() - 1 - j;
      const store::StoredMeasurement& m = rows[runnable[k]];
      run::LaunchStatus status;
      run::EnergyReading r = run_.energy->measure(launches[k], *m.objective, 0, status, policy.energy_race_updates);
      if (!status.ok()) {
        spdlog::warn("{} at {}: the energy race failed ({}); its first pass stands", m.params, f.size.value(),
                     status.message);
        if (status.sticky()) {
          run_.configs[run_.config_index.at(m.params)].compiled.faulted = true;
          states_.recover(st);
          return;
        }
        continue;
      }
      if (r.resolved) readings[k].push_back(std::move(r));
    }
  run_.count.decide_ms += ms_since(t0);
  for (std::size_t k = 0; k < runnable.size(); ++k) {
    if (readings[k].empty()) continue;
    const store::StoredMeasurement& m = rows[runnable[k]];
    double joules = 0, watts = 0, joules_var = 0, watts_var = 0;
    for (const auto& r : readings[k]) {
      joules += r.energy.joules;
      watts += r.power.watts;
      joules_var += r.energy.half_width * r.energy.half_width;
      watts_var += r.power.half_width * r.power.half_width;
    }
    const auto n = static_cast<double>(readings[k].size());
    store::Measurement again = m;
    // the mean of the rounds, with the time's relative interval (measured once, in the time race)
    const double time_rel =
        m.summary && m.summary->count > 1 && *m.objective > 0
            ? decision::estimate(std::vector<double>(m.samples_ms.begin(), m.samples_ms.end()), run_.rule.statistic)
                  .relative()
            : 0;
    again.energy_j = joules / n;
    again.power_w = watts / n;
    again.energy_hw_j = std::hypot(std::sqrt(joules_var) / n, *again.energy_j * time_rel);
    again.power_hw_w = std::sqrt(watts_var) / n;
    nlohmann::ordered_json extra = nlohmann::ordered_json::parse(m.extra.empty() ? "{}" : m.extra);
    if (!extra.contains("energy_first_pass")) extra["energy_first_pass"] = {{"energy_j", *m.energy_j}};
    extra["energy_rounds"] = readings[k].size();
    again.extra = extra.dump();
    again.measured_at.clear();
    run_.db.record(again);
  }
  spdlog::debug("{} at {}: {} energy contenders measured again in {} rounds", run_.kernel, f.size.value(),
                runnable.size(), kEnergyRounds);
}

}  // namespace tune::tuning

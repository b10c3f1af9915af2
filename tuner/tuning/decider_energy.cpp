// The energy race at one size (decider.h: race_energy).

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>
#include <optional>

#include "decision/energy_race.h"
#include "log/log.h"
#include "tuning/decider.h"

namespace tune::tuning {

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
  const auto t0 = Clock::now();
  bool stop = false;  // a fault that needs the context recovered
  // One window of runnable contender k; nullopt when it failed or the counter did not resolve it.
  auto window = [&](std::size_t k, int updates) -> std::optional<run::EnergyReading> {
    const store::StoredMeasurement& m = rows[runnable[k]];
    run::LaunchStatus status;
    run::EnergyReading r = run_.energy->measure(launches[k], *m.objective, 0, status, updates);
    if (!status.ok()) {
      log::warn("{} at {}: the energy race failed ({}); its first pass stands", m.params, f.size.value(),
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
  // The board warmed on the least first-pass energy's launches (its power rises as it warms).
  {
    run::LaunchStatus status;
    const std::vector<double> warm =
        run_.energy->warm_up(launches[0], *rows[runnable[0]].objective, status, policy.energy_warmup_ms);
    if (status.sticky()) {
      run_.configs[run_.config_index.at(rows[runnable[0]].params)].compiled.faulted = true;
      states_.recover(st);
      return;
    }
    if (!warm.empty())
      log::debug("{} at {}: energy warm-up {} windows, {:.1f} to {:.1f} W", run_.kernel, f.size.value(), warm.size(),
                 warm.front(), warm.back());
  }
  // Rounds of one window per contender in alternating order (decision/energy_race.h). A contender
  // whose window fails or is not resolved leaves the race (its first pass stands); the round is
  // taken again without it.
  const decision::EnergyRaceRule rule{policy.energy_race_min_rounds, policy.energy_race_max_rounds,
                                      policy.energy_race_noise, run_.rule};
  std::vector<std::size_t> racing(runnable.size());  // indices into runnable
  for (std::size_t k = 0; k < racing.size(); ++k) racing[k] = k;
  std::vector<std::vector<double>> joules, watts;  // [round][position in racing]
  for (int attempt = 0; !stop && racing.size() >= 2 && attempt < rule.max_rounds + static_cast<int>(rows.size());
       ++attempt) {
    if (decision::energy_race_done(joules, rule)) break;
    std::vector<double> j_row(racing.size()), w_row(racing.size());
    std::optional<std::size_t> dropped;
    for (std::size_t i : decision::energy_round_order(racing.size(), static_cast<int>(joules.size()))) {
      const std::optional<run::EnergyReading> r = window(racing[i], policy.energy_race_updates);
      if (stop) break;
      if (!r || !(r->energy.joules > 0) || !(r->power.watts > 0)) {
        dropped = i;
        break;
      }
      j_row[i] = r->energy.joules;
      w_row[i] = r->power.watts;
    }
    if (stop) break;
    if (dropped) {
      racing.erase(racing.begin() + static_cast<std::ptrdiff_t>(*dropped));
      for (auto* rounds : {&joules, &watts})
        for (auto& row : *rounds) row.erase(row.begin() + static_cast<std::ptrdiff_t>(*dropped));
      continue;
    }
    joules.push_back(std::move(j_row));
    watts.push_back(std::move(w_row));
  }
  run_.count.decide_ms += ms_since(t0);
  if (stop) {
    states_.recover(st);
    return;
  }
  if (racing.size() < 2 || joules.size() < 2) return;
  const std::vector<decision::Estimate> energy = decision::energy_race_estimates(joules);
  const std::vector<decision::Estimate> power = decision::energy_race_estimates(watts);
  const std::vector<double> levels = decision::energy_round_levels(joules);
  for (std::size_t i = 0; i < racing.size(); ++i) {
    const store::StoredMeasurement& m = rows[runnable[racing[i]]];
    store::Measurement again = m;
    // the time's relative interval (measured once, in the time race)
    const double time_rel =
        m.summary && m.summary->count > 1 && *m.objective > 0
            ? decision::estimate(std::vector<double>(m.samples_ms.begin(), m.samples_ms.end()), run_.rule.statistic)
                  .relative()
            : 0;
    again.energy_j = energy[i].value;
    again.energy_hw_j = energy[i].value * std::hypot(energy[i].relative(), time_rel);
    again.power_w = power[i].value;
    again.power_hw_w = power[i].half_width;
    nlohmann::ordered_json extra = nlohmann::ordered_json::parse(m.extra.empty() ? "{}" : m.extra);
    if (!extra.contains("energy_first_pass")) extra["energy_first_pass"] = {{"energy_j", *m.energy_j}};
    extra["energy_rounds"] = joules.size();
    // the raw race, for its noise: this contender's windows by round, its place in the order, the levels
    std::vector<double> mine;
    mine.reserve(joules.size());
    for (const auto& row : joules) mine.push_back(row[i]);
    extra["energy_race"] = {{"windows_j", mine}, {"index", i}, {"contenders", racing.size()}, {"levels_j", levels}};
    again.extra = extra.dump();
    again.measured_at.clear();
    run_.db.record(again);
  }
  log::debug("{} at {}: {} energy contenders measured again in {} rounds", run_.kernel, f.size.value(), racing.size(),
             joules.size());
}

}  // namespace tune::tuning

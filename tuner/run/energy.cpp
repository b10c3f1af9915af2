#include "run/energy.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>

#include "common/error.h"
#include "decision/decision.h"
#include "run/nvml.h"

namespace tune::run {

namespace {

using Clock = std::chrono::steady_clock;
double ms_since(Clock::time_point t) { return std::chrono::duration<double, std::milli>(Clock::now() - t).count(); }

// The launches queued ahead of the GPU, at most: an NVML read takes milliseconds, and a queue that
// runs dry while the host waits on one leaves the GPU idle inside the window (less power, a longer
// period per launch); never more than the launch queue holds.
constexpr double kLeadMs = 20.0;
constexpr double kMaxQueued = 1000;
// Updates in the first ms of a window are not used: the board's power is still rising.
constexpr double kRampMs = 5.0;
// Warm: a window's power within this of the window's before it.
constexpr double kSteadyPower = 0.005;

const Nvml& require_nvml(Session& session) {
  const Nvml* n = session.nvml();
  if (n == nullptr) throw UnavailableError("energy needs NVML, which is not available here: " + session.nvml_why());
  if (!n->energy_mj())
    throw UnavailableError("energy needs NVML's total-energy counter, which this GPU or driver does not provide");
  return *n;
}

std::string fixed(double v, int digits) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.*f", digits, v);
  return buf;
}

}  // namespace

bool PowerEstimate::resolved(std::uint64_t min_mj) const { return intervals >= 2 && min_step_mj >= min_mj; }

PowerEstimate power_over(std::span<const CounterReading> updates) {
  PowerEstimate p;
  if (updates.size() < 2) return p;
  std::vector<double> watts, gaps;
  p.min_step_mj = UINT64_MAX;
  for (std::size_t i = 1; i < updates.size(); ++i) {
    const double dt = updates[i].t_ms - updates[i - 1].t_ms;
    const std::uint64_t de = updates[i].mj - updates[i - 1].mj;  // the counter only grows
    if (!(dt > 0) || updates[i].mj < updates[i - 1].mj) continue;
    watts.push_back(static_cast<double>(de) / dt);  // mJ / ms = W
    gaps.push_back(dt);
    p.min_step_mj = std::min(p.min_step_mj, de);
  }
  p.intervals = static_cast<int>(watts.size());
  if (watts.empty()) {
    p.min_step_mj = 0;
    return p;
  }
  p.span_ms = updates.back().t_ms - updates.front().t_ms;
  p.watts = static_cast<double>(updates.back().mj - updates.front().mj) / p.span_ms;
  p.half_width = decision::estimate(watts, decision::Statistic::mean).half_width;
  std::sort(gaps.begin(), gaps.end());
  p.period_ms = gaps[gaps.size() / 2];
  return p;
}

EnergyPerLaunch energy_per_launch(const PowerEstimate& power, double ms_per_launch, double time_relative_hw) {
  EnergyPerLaunch e;
  e.joules = power.watts * ms_per_launch / 1000.0;
  const double rel = power.watts > 0 ? power.half_width / power.watts : 0;
  e.half_width = e.joules * std::hypot(rel, time_relative_hw);
  return e;
}

EnergyMeter::EnergyMeter(Session& session, const EnergyOptions& options)
    : session_(session), nvml_(require_nvml(session)), options_(options) {
  if (options_.updates < 2) throw InputError("energy: updates " + std::to_string(options_.updates) + " < 2");
  // With the GPU idle: the counter's updates give its period and the idle baseline.
  (void)session_.synchronize("energy probe");
  std::vector<CounterReading> updates;
  const auto t0 = Clock::now();
  std::uint64_t last = *nvml_.energy_mj();
  while (updates.size() < 7 && ms_since(t0) < options_.probe_ms) {
    const auto e = nvml_.energy_mj();
    if (e && *e != last) updates.push_back({ms_since(t0), last = *e});
  }
  idle_ = power_over(updates);
  if (idle_.intervals < 2 || !idle_.period_ms)
    throw UnavailableError("energy: NVML's total-energy counter updated " + std::to_string(updates.size()) +
                           " times in " + fixed(options_.probe_ms, 0) + " ms; too few to measure with");
  period_ms_ = *idle_.period_ms;
}

EnergyReading EnergyMeter::measure(const LaunchFn& launch, double ms_per_launch, double time_relative_hw,
                                   LaunchStatus& status, int updates) {
  const int wanted = updates > 0 ? updates : options_.updates;
  EnergyReading r;
  const double per = std::max(ms_per_launch, 1e-6);
  const double lead = std::max(per, std::min(kLeadMs, per * kMaxQueued));
  std::vector<CounterReading> readings;
  double instant_sum = 0;
  int instant_n = 0;
  const auto t0 = Clock::now();
  std::uint64_t last = nvml_.energy_mj().value_or(0);
  std::size_t launched = 0;
  status = LaunchStatus{};
  while (true) {
    const double now = ms_since(t0);
    while (static_cast<double>(launched) * per - now < lead) {
      status = launch();
      if (!status.ok()) {
        r.why = "a launch failed in the energy window: " + status.message;
        return r;
      }
      ++launched;
    }
    const auto e = nvml_.energy_mj();
    if (!e) {
      r.why = "NVML refused to read the energy counter";
      break;
    }
    if (*e != last) {
      last = *e;
      if (now >= kRampMs) {
        readings.push_back({ms_since(t0), *e});
        if (const auto w = nvml_.power_instant_w()) instant_sum += *w, ++instant_n;
      }
    }
    if (static_cast<int>(readings.size()) > wanted) break;
    if (now > options_.max_window_ms) {
      r.why = "the energy counter updated " + std::to_string(readings.size()) + " times in " +
              fixed(options_.max_window_ms, 0) + " ms of launches";
      break;
    }
  }
  status = session_.synchronize("energy window");
  if (!status.ok()) {
    r.why = "the energy window failed: " + status.message;
    return r;
  }
  const double wall = ms_since(t0);
  r.launches = launched;
  r.ms_per_launch = wall / static_cast<double>(launched);
  r.power = power_over(readings);
  if (instant_n > 0) r.instant_w = instant_sum / instant_n;
  if (!r.why.empty()) return r;
  if (!r.power.resolved(kMinStepMj)) {
    r.why = "below the energy counter's resolution (" + std::to_string(r.power.intervals) + " intervals, steps of " +
            std::to_string(r.power.min_step_mj) + " mJ)";
    return r;
  }
  r.energy = energy_per_launch(r.power, r.ms_per_launch, time_relative_hw);
  r.resolved = true;
  return r;
}

std::vector<double> EnergyMeter::warm_up(const LaunchFn& launch, double ms_per_launch, LaunchStatus& status,
                                         double max_ms) {
  warmed_ = true;
  const double limit = max_ms > 0 ? max_ms : options_.warmup_ms;
  std::vector<double> watts;
  const auto t0 = Clock::now();
  while (ms_since(t0) < limit) {
    const EnergyReading r = measure(launch, ms_per_launch, 0, status, 2);
    if (!status.ok()) break;
    if (!r.resolved) continue;
    watts.push_back(r.power.watts);
    if (watts.size() >= 2 && std::abs(watts.back() / watts[watts.size() - 2] - 1) < kSteadyPower) break;
  }
  return watts;
}

std::string EnergyMeter::describe() const {
  return "energy: NVML's total-energy counter (mJ, updated every " + fixed(period_ms_, 1) +
         " ms here) read while each configuration's launches run back to back (up to 20 ms and 1000 launches queued "
         "ahead), over " +
         std::to_string(options_.updates) +
         " whole counter updates after the first 5 ms (a first pass; the run's first window after up to " +
         fixed(options_.warmup_ms, 0) +
         " ms of warm-up, until a window's power is within 0.5% of the one before); J per launch = the window's "
         "average power x the host's period per launch over the window; the 95% interval from the updates' powers; "
         "a window the counter does not resolve (fewer updates in " +
         fixed(options_.max_window_ms, 0) + " ms, steps under " + std::to_string(kMinStepMj) +
         " mJ) is marked unresolved, not stored; " + (options_.race.empty() ? "" : options_.race + "; ") +
         "idle baseline " + fixed(idle_.watts, 1) + " W (" + std::to_string(idle_.intervals) +
         " updates, the GPU idle, this run); clocks and power limits untouched";
}

}  // namespace tune::run

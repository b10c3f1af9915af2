// Energy per launch, measured through NVML's total-energy counter (nvml.h), only where a run asks
// for it (tune run --objective energy|edp): the time-only method is unchanged and costs nothing more.
//
// The method (describe() states it in the run's description and above its table):
//   - the counter (mJ since the driver loaded) advances in steps, every `period` (probed once per
//     run: the median interval between its updates, with the GPU idle); a figure read from it is
//     only as fine as one step;
//   - the idle baseline: the board's average power over whole counter updates with nothing running,
//     in the same run (stored with it: runs.idle_power_w);
//   - a window per configuration and size: the launches of the first placement run back to back
//     (the host keeps up to 20 ms of them queued, at most 1000 launches: an NVML read takes
//     milliseconds, and the GPU must not run dry while the host waits on one), while the host polls the
//     counter; the window opens at the first update after the launches started and closes at the
//     update that completes `updates` whole intervals, all of them inside the back-to-back run. Its
//     average power is (E_close - E_open) / (t_close - t_open), each interval a sample of it
//     (95% interval, Student's t); the energy per launch is that power times the host's period per
//     launch over the whole run of launches (its wall time / launches: the gaps a host cannot fill
//     between launches of a few microseconds are charged to the launches, as in an application's
//     loop); the instantaneous power (NVML_FI_DEV_POWER_INSTANT) is read at each update as a
//     cross-check (extra.power_instant_w);
//   - unresolved: a window whose counter did not update `updates` times within max_window_ms, or
//     whose energy in an interval is under a few counter units, is not a figure: no energy is
//     stored for it, and extra.energy says why.
// Clocks and power limits are never changed. Tuning them (a user's own machine, with the rights to
// set them) would be a further dimension of the space applied around each measurement: the
// extension point is EnergyMeter::measure's caller (tuning/size_measure.cpp), which would set and
// restore them there through NVML's setters; tune does not do it.
#pragma once
#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "run/session.h"
#include "run/timing.h"

namespace tune::run {

struct EnergyOptions {
  int updates = 3;              // whole counter intervals a window spans (each a sample of the power)
  double max_window_ms = 2000;  // a window that has not closed by then is unresolved
  double probe_ms = 1500;       // at most, to find the counter's period and the idle baseline
  double warmup_ms = 1000;      // at most, of warm-up before a run's first window (warm_up())
  std::string race;             // how the energy contenders are measured again (decision/policy.h), for describe()
};

// One reading of the counter: host time (ms, steady clock) and energy (mJ).
struct CounterReading {
  double t_ms = 0;
  std::uint64_t mj = 0;
};

// The power over successive counter updates: the readings at which the counter changed, in order.
struct PowerEstimate {
  double watts = 0, half_width = 0;  // mean over the intervals and its 95% half-width
  int intervals = 0;
  double span_ms = 0;                         // from the first update to the last
  std::uint64_t min_step_mj = 0;              // the smallest energy step between two updates
  std::optional<double> period_ms;            // the median interval between updates
  bool resolved(std::uint64_t min_mj) const;  // at least one interval and every step above min_mj
};
// From the readings at which the counter changed (at least two; fewer give intervals = 0).
PowerEstimate power_over(std::span<const CounterReading> updates);

// Energy per launch from the window's power and the period per launch: joules and their 95% half-
// width (the power's relative interval and the time's combined).
struct EnergyPerLaunch {
  double joules = 0, half_width = 0;
};
EnergyPerLaunch energy_per_launch(const PowerEstimate& power, double ms_per_launch, double time_relative_hw);

struct EnergyReading {
  bool resolved = false;
  std::string why;  // when not resolved
  EnergyPerLaunch energy;
  PowerEstimate power;
  double ms_per_launch = 0;         // the host's period per launch over the window's launches
  std::optional<double> instant_w;  // mean instantaneous power read at the updates
  std::size_t launches = 0;
};

// A counter's energy step that is still noise: a step of fewer mJ than this is not a figure.
inline constexpr std::uint64_t kMinStepMj = 4;

class EnergyMeter {
 public:
  // Probes the counter's period and the idle baseline. Throws UnavailableError (one line, naming
  // the cause) without NVML or without its energy counter.
  EnergyMeter(Session& session, const EnergyOptions& options = {});

  // One window of `launch` (time per launch from the timing, `ms_per_launch`, with its relative
  // 95% half-width). A launch failure comes back in status, the reading unresolved.
  // `updates`: whole counter intervals of this window (0: the options').
  EnergyReading measure(const LaunchFn& launch, double ms_per_launch, double time_relative_hw, LaunchStatus& status,
                        int updates = 0);

  // The board warmed before a measurement: windows of `launch` (2 updates each) until one's power is
  // within 0.5% of the one before (the board's power rises as it warms) or `max_ms` (0: the
  // options') has passed. Returns each window's power (W), in order; stops at a failed launch.
  std::vector<double> warm_up(const LaunchFn& launch, double ms_per_launch, LaunchStatus& status, double max_ms = 0);
  // Whether warm_up() ran in this run (the first window of a run warms the board first).
  bool warmed() const { return warmed_; }

  double period_ms() const { return period_ms_; }
  const PowerEstimate& idle() const { return idle_; }
  // The method, with this run's period and idle baseline: stored with the run (runs.energy).
  std::string describe() const;

 private:
  Session& session_;
  const Nvml& nvml_;
  EnergyOptions options_;
  double period_ms_ = 0;
  PowerEstimate idle_;
  bool warmed_ = false;
};

}  // namespace tune::run

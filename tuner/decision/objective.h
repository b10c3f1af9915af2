// What a choice minimises: the time per launch (Kernel Tuner's `time`), the board energy per launch
// (its `nvml_energy`), or their product, the energy-delay product (EDP). Each configuration's value
// of the objective with its 95% interval, from its time and energy estimates, and the time-energy
// Pareto front of a size. Pure: no GPU, no database.
#pragma once
#include <cstddef>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "decision/decision.h"

namespace tune::decision {

enum class Objective { time, energy, edp };
std::string_view to_string(Objective o);
// "time", "energy" or "edp"; throws InputError naming the value otherwise.
Objective parse_objective(std::string_view s);
// The unit of the objective's values: "ms", "J", "J*ms".
std::string_view unit(Objective o);
// Whether the objective needs measured energy.
inline bool needs_energy(Objective o) { return o != Objective::time; }

// A configuration's time (ms) and, where measured and resolved, energy per launch (J), each with
// its 95% half-width.
struct TimeEnergy {
  Estimate time;
  std::optional<Estimate> energy;
};

// The objective's estimate: the time; the energy; or time x energy, its relative half-width the
// root of the sum of the squared relative half-widths. nullopt where the objective needs energy
// and there is none.
std::optional<Estimate> objective_estimate(Objective o, const TimeEnergy& v);

// The time-energy Pareto front: the indices of the points no other point beats in both time and
// energy (lower or equal in both, lower in one), by ascending time. Points with a non-positive or
// non-finite coordinate are left out.
struct TimeEnergyPoint {
  double time_ms = 0, energy_j = 0;
};
std::vector<std::size_t> pareto_front(std::span<const TimeEnergyPoint> points);

}  // namespace tune::decision

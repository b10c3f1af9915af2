#include "decision/objective.h"

#include <algorithm>
#include <cmath>
#include <numeric>

#include "common/error.h"

namespace tune::decision {

std::string_view to_string(Objective o) {
  switch (o) {
    case Objective::time:
      return "time";
    case Objective::energy:
      return "energy";
    case Objective::edp:
      return "edp";
  }
  return "time";
}

Objective parse_objective(std::string_view s) {
  if (s == "time") return Objective::time;
  if (s == "energy") return Objective::energy;
  if (s == "edp") return Objective::edp;
  throw InputError("objective '" + std::string(s) + "': expected time, energy or edp (energy-delay product)");
}

std::string_view unit(Objective o) {
  switch (o) {
    case Objective::time:
      return "ms";
    case Objective::energy:
      return "J";
    case Objective::edp:
      return "J*ms";
  }
  return "ms";
}

std::optional<Estimate> objective_estimate(Objective o, const TimeEnergy& v) {
  if (o == Objective::time) return v.time;
  if (!v.energy || !(v.energy->value > 0)) return std::nullopt;
  if (o == Objective::energy) return v.energy;
  Estimate e;
  e.value = v.time.value * v.energy->value;
  e.half_width = e.value * std::hypot(v.time.relative(), v.energy->relative());
  e.samples = std::min(v.time.samples, v.energy->samples);
  return e;
}

std::vector<std::size_t> pareto_front(std::span<const TimeEnergyPoint> points) {
  auto usable = [](const TimeEnergyPoint& p) {
    return std::isfinite(p.time_ms) && std::isfinite(p.energy_j) && p.time_ms > 0 && p.energy_j > 0;
  };
  std::vector<std::size_t> order;
  for (std::size_t i = 0; i < points.size(); ++i)
    if (usable(points[i])) order.push_back(i);
  // by time, then energy: a point is on the front when its energy is below every earlier point's
  std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
    if (points[a].time_ms != points[b].time_ms) return points[a].time_ms < points[b].time_ms;
    return points[a].energy_j < points[b].energy_j;
  });
  std::vector<std::size_t> front;
  double lowest = INFINITY;
  for (std::size_t i : order)
    if (points[i].energy_j < lowest) {
      front.push_back(i);
      lowest = points[i].energy_j;
    }
  return front;
}

}  // namespace tune::decision

// Time against energy per size, from the stored measurements with a resolved energy: the
// time-energy Pareto front (`tune best --pareto`, the report's plot) and what choosing for energy
// instead of time saves and costs (the end of an energy run, docs/performance.md).
#pragma once
#include <optional>
#include <string>
#include <vector>

#include "decision/objective.h"
#include "store/store.h"

namespace tune::query {

struct EnergyPoint {
  std::string params;  // canonical JSON
  double time_ms = 0, energy_j = 0;
  std::optional<double> power_w;
  bool front = false;  // on the size's Pareto front
  bool raced = false;  // its energy from the size's energy race (else a first pass)
};

struct SizeFront {
  std::string size;
  std::vector<EnergyPoint> points;  // every verified configuration with energy, by time
  std::vector<std::size_t> front;   // indices into points, by time (decision::pareto_front)
};

// Per stored size with at least one energy, in size order.
std::vector<SizeFront> pareto(store::Store& db, const std::string& kernel, const std::string& device);

// At one size: the configuration the time objective uses and the one the energy objective uses
// (query/verdict.h, the same rule), each with its time and energy.
struct Tradeoff {
  std::string size;
  std::string time_best, energy_best;  // canonical JSON
  double time_best_ms = 0, time_best_j = 0;
  double energy_best_ms = 0, energy_best_j = 0;
  bool time_best_has_energy = false;  // the time objective's choice has a resolved energy
  // energy saved by the energy-optimal choice (1 - its J / the time-optimal's J), and its time cost
  // (its ms / the time-optimal's ms - 1); nullopt without the time-optimal's energy
  std::optional<double> saved() const;
  double time_cost() const { return time_best_ms > 0 ? energy_best_ms / time_best_ms - 1 : 0; }
};
std::vector<Tradeoff> tradeoffs(store::Store& db, const std::string& kernel, const std::string& device);

// `tune best --pareto` and the end of an energy run: per size, the front and the tradeoff, as text
// (configurations as labels with a legend) or as one JSON object.
std::string pareto_text(store::Store& db, const std::string& kernel, const std::vector<std::string>& devices,
                        bool wide);
std::string pareto_json(store::Store& db, const std::string& kernel, const std::vector<std::string>& devices);

}  // namespace tune::query

// Questions asked of stored results: the best configuration per (device, problem size); at a size
// never measured, the selection model's choice (select/select.h), with the evidence it rests on.
#pragma once
#include <optional>
#include <string>
#include <vector>

#include "decision/objective.h"
#include "query/verdict.h"
#include "select/build.h"
#include "store/store.h"

namespace tune::query {

// A measurement a predicted choice rests on: the configuration's regret (time / the best time) and
// time at a measured size.
struct Evidence {
  std::string size;
  double regret = 1, time_ms = 0;  // time_ms: the objective's value there (ms, or J / J*ms for energy, edp)
};

struct Best {
  std::string kernel, device;
  std::string size;           // the size asked for (or measured, when listing)
  std::string measured_size;  // the measured size nearest to it (its figures below are from there)
  tune_select::How match = tune_select::How::exact;  // exact, predicted or extrapolated
  double regret = 1;                                 // predicted (measured when exact): time / the best time
  bool applies = true;                               // the configuration's fast path applies at size (Tune.alignment)
  std::vector<Evidence> evidence;                    // the measurements the choice rests on, nearest first
  std::string params;                                // canonical JSON: the configuration to use (verdict.h)
  double time_ms = 0;                                // its time (the statistic below), whatever the objective
  double half_width_ms = 0;                          // of its 95% interval
  std::optional<double> gbps, gflops;
  std::int64_t config_id = 0, run_id = 0;
  std::size_t candidates = 0;     // ok measurements at that (device, size)
  std::vector<std::string> tied;  // the other configurations tied with it (canonical JSON)
  std::string winner;             // the fastest measured, when a tie-break chose another; else ""
  double noise = 0;               // the winner's relative 95% half-width at that size
  bool remeasured = false;        // decided by a GPU run's interleaved re-measurement
  std::string statistic = "mean";
  decision::Objective objective = decision::Objective::time;  // what `regret` and the choice are about
  double objective_value = 0;                                 // its value (ms, J or J*ms)
  std::optional<double> energy_j, energy_hw_j, power_w;       // measured energy per launch, power
};

struct BestQuery {
  std::optional<std::string> kernel;      // required unless the database holds one kernel
  std::optional<std::string> device;      // every device when absent
  std::optional<std::string> size;        // a size or a comma list of them; every measured size when absent
  select::Alignment alignment = nullptr;  // of a configuration (canonical JSON); none: every axis 1
  decision::Objective objective = decision::Objective::time;  // energy, edp: from measured energy only
};

// The configuration to use per device and size (query/verdict.h: the lowest objective, ties
// broken towards the neighbouring sizes' choice), ordered by device, then size (asked sizes: in
// the order asked). Throws InputError
// when the kernel is unknown or not given and ambiguous.
std::vector<Best> best(store::Store& db, const BestQuery& q);

// The selection model of a kernel on a device from every stored verified measurement (variants are
// canonical JSON configurations): what `tune best`, the generated headers and the --table JSON use.
// With the energy or EDP objective, each configuration's value is its energy (or time x energy)
// where measured: the model then predicts the energy-optimal choice.
select::Data model(store::Store& db, const std::string& kernel, const std::string& device,
                   const select::Alignment& alignment, decision::Objective objective = decision::Objective::time);

// What the model is built from: per verdict its size, its decision with the decision's value, and
// every contender's value.
std::vector<select::SizeMeasurements> size_measurements(const std::vector<SizeVerdict>& verdicts);

// Resolves --kernel: the given one if stored, the only one if not given. Throws InputError.
std::string resolve_kernel(store::Store& db, const std::optional<std::string>& kernel);

}  // namespace tune::query

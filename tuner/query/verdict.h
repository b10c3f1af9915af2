// The verdict at every stored size of a kernel on a device: the winner, the configurations tied with
// it, and the one used there (the tie-break across sizes, decision::select_across_sizes, among the
// tied configurations within the rule's margin of the winner's value: a configuration tied only by
// a wide interval is indistinguishable, not as good, and is reported but never chosen). A size a
// GPU run decided (store::Decision, from an interleaved re-measurement) keeps that decision while
// its winner is still the fastest stored there; any other size (replays, imports, older databases)
// is decided by the same rule from the stored objectives and samples. Every ranking of the project
// (best, header, report, flags) goes through here.
#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "decision/decision.h"
#include "decision/objective.h"
#include "store/store.h"

namespace tune::query {

struct Contender {
  std::int64_t config_id = 0;
  std::string params;                  // canonical JSON
  decision::Estimate estimate;         // the objective (ms, J or J*ms: decision/objective.h) and its 95% interval
  double time_ms = 0, time_hw_ms = 0;  // its time and the half-width of its 95% interval, whatever the objective
  std::optional<double> energy_j, energy_hw_j, power_w;  // measured energy per launch and average power
  bool energy_raced = false;                             // its energy from an energy race (extra.energy_rounds)
  std::optional<double> gbps, gflops;
  std::int64_t run_id = 0;
};

struct SizeVerdict {
  std::string size;
  std::vector<Contender> tied;  // the winner first, then the tied ones by value
  std::size_t chosen = 0;       // index into tied: the configuration used at this size, among those
                                // within tie_margin of the winner's value
  double tie_margin = decision::kDefaultTieMargin;
  std::size_t candidates = 0;  // verified measurements at this size
  double noise = 0;            // the winner's relative 95% half-width
  bool remeasured = false;     // decided by a GPU run's interleaved re-measurement
  std::int64_t rounds = 0;     // its rounds
  // the verified measurements at this size, by objective (for the flags and the single best)
  std::vector<Contender> all;

  const Contender& used() const { return tied.at(chosen); }
  const Contender& winner() const { return tied.front(); }
  // The throughput of the configuration used: GB/s, else GFLOP/s, else elements per ms.
  double throughput() const;
};

// Every stored size with a verified result, in size order (numeric). `rule` decides the sizes
// without a stored decision (the default: mean, kDefaultTieMargin). With the energy or EDP
// objective, only measurements with a resolved energy count (a size without any is left out), each
// ranked by its energy (or time x energy) and its 95% interval by the same rule, among the
// contenders of the size's energy race where a GPU run raced them; the stored decisions are
// time's and do not apply.
std::vector<SizeVerdict> verdicts(store::Store& db, const std::string& kernel, const std::string& device,
                                  const decision::Rule& rule = {},
                                  decision::Objective objective = decision::Objective::time);

// The best single configuration over the sizes of `v` (decision::single_best), with its params.
struct SingleBest {
  std::string params;
  std::vector<double> loss;  // per size of v: its objective / the used configuration's
};
std::optional<SingleBest> single_best(const std::vector<SizeVerdict>& v);

}  // namespace tune::query

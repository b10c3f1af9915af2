// How a GPU run measures and decides, as one value: the stopping rule of a measurement (nvbench's
// model: fewest samples, a relative-noise target, a time cap), the first pass, the race of the
// contenders at each size (rounds, placements, further CUDA contexts, the first pass's weight) and
// the verdict (statistic, tie margin). The defaults are the method the project measured its
// figures with; a spec's "Tune": {"policy": {...}} and `tune run --policy key=value` override them
// (spec/extension.h, tuning/tuner.h), and describe() is the method text stored with the run and
// printed above its table. Pure: no GPU, no database.
#pragma once
#include <cstddef>
#include <span>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

#include "decision/decision.h"

namespace tune::decision {

struct Policy {
  // One measurement (run::TimingOptions): batches of launches until the stopping rule holds.
  int warmup = 0;              // untimed launches first: the primed batches warm each placement anyway
  int min_samples = 10;        // --repetitions: an interval from fewer samples is not worth its name
  int max_samples = 200;       // a cap for kernels whose interval never narrows
  double min_batch_ms = 0.05;  // events resolve about 0.5 us: a 50 us batch keeps that within 1%
  double max_noise = 0.01;     // stop once the mean's 95% half-width is within this fraction of it
  double min_time_ms = 0;      // of timed batches before the rule may stop (0: the samples decide)
  double max_time_ms = 200;    // of timed batches, then stop whatever the interval: bounds a slow kernel's cost
  int max_retakes = 3;         // rounds taken again because the GPU throttled: clocks settle within a few
  int steady_throttle = 3;     // measurements in a row throttled through their retakes: the GPU's steady state
  bool flush_l2 = false;       // --flush-l2: cold L2 before each launch instead of warm back-to-back batches

  // The first pass of each configuration at a size.
  std::size_t first_placements = 2;  // argument placements it is timed on: a time depends on where buffers lie
  // Arguments at least this many times the L2's size get the race's further placements just before
  // the race instead of with the size's state: far from L2 a fresh copy behaves alike, and memory
  // is left for a window of several sizes.
  std::size_t late_placements_over_l2 = 16;
  // A first pass stops after screen_after samples once the fastest of them is over screen_ratio
  // times the size's best first pass so far (run/timing.h: the screen; 0 turns it off): a
  // configuration that far behind is no contender. Not with an energy objective.
  double screen_ratio = 1.3;
  int screen_after = 3;

  // The race: the contenders at a size measured again, interleaved, before the verdict.
  std::size_t contenders = 8;      // at most: more cost time and rarely hold the winner
  double contender_widen = 3.0;    // within this many times the tie test's margin of the best first pass
  int race_min_rounds = 2;         // rounds before a contender may leave the race (outpaced)
  int race_max_rounds = 4;         // the winner held in another run at all but 1 of 32 sizes with 4
  double race_noise = 0.003;       // stop once every contender still racing is known within this
  std::size_t placements = 16;     // of the arguments (fewer where memory is short): the winner must hold elsewhere
  std::size_t other_contexts = 5;  // further CUDA contexts for kernels of a few us: each draws its own launch cost
  double other_contexts_below_ms =
      0.02;                          // where the best first pass is shorter than this (and the arguments fit in L2 / 4)
  std::size_t other_placements = 4;  // placements per context there (and of this context's race)
  std::size_t contenders_elsewhere = 24;   // more contenders there: one context's first pass can put one 5% off
  double contender_widen_elsewhere = 8.0;  // and from farther: 6 missed winners another run raced and chose
  double first_pass_weight = 0.25;         // the first pass's share of a contender's value: times drift with the moment

  // Energy (run/energy.h), measured only with --objective energy|edp: whole updates of NVML's energy
  // counter each configuration's window spans, each a sample of its power.
  int energy_updates = 3;
  // The energy race at each size (decision/energy_race.h): the configurations within energy_widen of
  // the least first-pass energy (at most energy_contenders), after energy_warmup_ms of the least
  // one's launches (the board's power rises as it warms), measured again in rounds of one window
  // each (energy_race_updates counter updates), between energy_race_min_rounds and
  // energy_race_max_rounds, until the leader is separated or each is known within
  // energy_race_noise. A first pass's window is short, and the counter's updates reach the host
  // with a few ms of jitter: about 3% per 200 ms window.
  std::size_t energy_contenders = 8;
  double energy_widen = 0.06;
  int energy_race_updates = 3;
  int energy_race_min_rounds = 3;
  int energy_race_max_rounds = 6;
  double energy_race_noise = 0.005;
  double energy_warmup_ms = 1000;

  // The verdict (decision.h).
  Statistic statistic = Statistic::mean;  // Tune.statistic: Kernel Tuner's `time` is the mean
  double tie_margin = kDefaultTieMargin;  // differences smaller than this do not repeat from run to run

  Rule rule() const { return {statistic, tie_margin}; }

  // Sets one key (the field's name, see keys()) from a JSON value: an integer for counts, a number
  // for fractions and times, true/false for flush_l2, "mean"/"median" for statistic. Throws
  // InputError "<key>: <cause>" for an unknown key, a value of the wrong type or out of bounds.
  void set(std::string_view key, const nlohmann::json& value);
  // `key=value` as the command line gives it (the value as JSON when it parses, else a string).
  void assign(std::string_view assignment);
  // Throws InputError naming the keys when two values contradict each other (a minimum above its
  // maximum); set() checks each value alone.
  void check() const;

  // The method in words: the run's stored description (store::RunInfo::timing) and the "timing:"
  // line above its table.
  std::string describe() const;
  // The energy race and the energy verdict, in words (run/energy.h's method line carries it).
  std::string describe_energy_race() const;
};

// One settable key of Policy: its name and bounds, for errors and documentation.
struct PolicyKey {
  std::string_view name;
  double min = 0, max = 0;  // inclusive (for statistic and flush_l2: unused)
};
std::span<const PolicyKey> policy_keys();

}  // namespace tune::decision

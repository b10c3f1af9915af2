// The arithmetic of the strategy-comparison methodology of Willemsen et al., "A Methodology for
// Comparing Optimization Algorithms for Auto-Tuning", FGCS 2024, as implemented in
// AutoTuningAssociation/autotuning_methodology (searchspace_statistics.py, baseline.py,
// experiments.py, visualize_experiments.py): statistics of one brute-forced space, the calculated
// random-search baseline, the cutoff points that set the time budget, and the score of a
// strategy's best-so-far curves against the baseline. evaluate.h says what is run and how.
//
// Per space (one cache laid over one spec's valid configurations), minimising the objective:
//  * Distribution: the objectives of the successful configurations, sorted ascending (N of them;
//    failed configurations are left out, the methodology's default include_nan=False). Median:
//    numpy's (mean of the two middle values when N is even). Optimum: the smallest.
//  * Time of a configuration: compile_time + verification_time + benchmark_time as recorded (the
//    cost Kernel Tuner's simulation mode and tune's replay charge), in seconds; failed
//    configurations have these times too.
//  * Time per evaluation ("mean_per_feval", the baseline's default): mean time of the successful
//    configurations + (failed fraction) x mean time of the failed ones.
//  * Calculated random baseline after M evaluations (baseline.py _redwhite_index): in the
//    distribution sorted worst first, index min(N - 1, round(M (N + 1) / (M + 1))): the expected
//    rank of the best of M uniform draws without replacement, M (N + 1) / (M + 1) counted from 1,
//    used as a 0-based index, as the methodology does (so it is one place better than the exact
//    expectation; kept by default for fidelity; Settings::exact_rank, `--exact-baseline`, takes
//    the exact expected rank M (N + 1) / (M + 1) - 1 instead and inverts it in the cutoff).
//    round() is Python's: half to even. At time t, M = round(max(t / time per evaluation, 1)).
//  * Cutoff point for a percentile p (searchspace_statistics.py cutoff_point): the target
//    optimum + (median - optimum) (1 - p); i = the first index, worst first, whose objective is
//    <= the target; fevals = ceil(i / (N + 1 - i)) (the M at which the baseline reaches index i);
//    time = fevals x the median time of all configurations (cutoff_point_fevals_time).
//  * Time range (visualize_experiments.py): `resolution` points, numpy.linspace from the time of
//    the cutoff_percentile_start point to the time of the cutoff_percentile point. Each run gets
//    the time limit time(cutoff_percentile) x (1 + cutoff_margin) (experiments.py
//    calculate_budget, cutoff_type "time").
//  * Strategy curve: at each time t, each repeat's best successful objective among the
//    evaluations completed by t, as its rank in the distribution (searchsorted left: 0 = optimum);
//    the mean rank over the repeats that have one, rounded half to even, looked up in the
//    distribution. Leading times at which no repeat has a result take the first value (the
//    methodology's isotonic fit clips to its first point); a strategy that never succeeds gets the
//    worst value throughout.
//  * Score: P(t) = (f_strategy(t) - f_random(t)) / (f_optimum - f_random(t)) at each time point,
//    averaged over the time range (points where f_random(t) is the optimum, where P is 0/0 or
//    -inf, are left out of the mean; with the defaults they do not occur on the benchmark_hub
//    caches). The score over several spaces is the mean of the per-space scores, which equals the
//    methodology's mean over time of the per-time mean over spaces.
//
// Calibration, measured (2000 repeats per cache, tests in evaluate_test.cpp): random_sample itself
// scores -0.01 to -0.14 per benchmark_hub cache, -0.04 on average, against the reference index,
// and -0.01 on average (0.00 on five of the six caches) with exact_rank. What remains comes from
// the time axis: at the first time points M = round(t / mean time) exceeds the evaluations that
// have completed on average, and the spread of that number makes the expected best worse
// (convexity). On spaces whose best objectives are far apart (convolution_milo on MI250X) one
// rank is a large step, so scores there are noisy: compare strategies with many repeats.
//
// Deviations from the Python implementation, all deliberate:
//  * The strategy curve is the pointwise mean rank of each repeat's best-so-far step function on
//    the time grid, instead of a bagged isotonic regression fitted to every (time, rank) point of
//    every repeat within the range +/- a margin. Both are monotone least-squares estimates of the
//    mean rank at each time; ours has no bootstrap noise and no margin window.
//  * objective_time_keys: the experiment files use "all" (also framework_time and strategy_time of
//    the recording run); we count compile, verification and benchmark time, the clock a replayed
//    strategy is charged with (framework_time is ~2 ms of several seconds per configuration in the
//    benchmark_hub caches; strategy_time is 0 there).
//  * The run budget is a time limit (cutoff_type "time"); the paper's experiment files set
//    cutoff_type "fevals" (a max_fevals budget of ceil(fevals x 1.1)). A time limit covers the
//    scored time range for every strategy, so no curve needs the methodology's "fictional" part.
#pragma once
#include <cstddef>
#include <optional>
#include <utility>
#include <vector>

namespace tune::evaluate {

// The defaults of experiment_files/compare_hypertuners_paper.json and experiments_defaults.json.
struct Settings {
  double cutoff_percentile = 0.95;
  double cutoff_percentile_start = 0.5;
  double cutoff_margin = 0.1;
  std::size_t resolution = 1000;
  // false: the reference implementation's baseline index (the 1-based expected rank used as a
  // 0-based index, one place optimistic); true: the exact expected rank, M (N + 1) / (M + 1) - 1,
  // and the cutoff fevals ceil((i + 1) / (N - i)) that inverts it.
  bool exact_rank = false;
};

// Python's round() of a non-negative double to an integer: half to even.
std::size_t round_half_even(double x);

class SpaceStats {
 public:
  // objective: per configuration, nullopt when it failed; cost_s: its recorded time in seconds.
  // Throws InputError when no configuration succeeded.
  SpaceStats(const std::vector<std::optional<double>>& objective, const std::vector<double>& cost_s);

  std::size_t configs() const { return configs_; }
  std::size_t successful() const { return sorted_.size(); }      // N
  const std::vector<double>& sorted() const { return sorted_; }  // ascending: best first
  double optimum() const { return sorted_.front(); }
  double median() const { return median_; }
  double time_per_feval_s() const { return time_per_feval_s_; }  // mean_per_feval
  double median_time_s() const { return median_time_s_; }        // over all configurations
  // Position of an objective in the distribution (searchsorted left): 0 = the optimum.
  std::size_t rank(double objective) const;

 private:
  std::size_t configs_ = 0;
  std::vector<double> sorted_;
  double median_ = 0, time_per_feval_s_ = 0, median_time_s_ = 0;
};

// The calculated random-search baseline, as ranks in SpaceStats::sorted() (0 = optimum).
std::size_t baseline_fevals(const SpaceStats& s, double time_s);                              // M at time t
std::size_t baseline_rank(const SpaceStats& s, std::size_t fevals, bool exact_rank = false);  // best after M
double baseline_value(const SpaceStats& s, double time_s, bool exact_rank = false);

struct Cutoff {
  double objective = 0;   // the target objective
  std::size_t index = 0;  // i, worst first
  std::size_t fevals = 0;
  double time_s = 0;
};
Cutoff cutoff_point(const SpaceStats& s, double percentile, bool exact_rank = false);

struct Window {
  bool exact_rank = false;  // Settings::exact_rank
  Cutoff start, end;
  double time_limit_s = 0;    // each run's budget
  std::vector<double> times;  // the time points the score averages over
};
Window window(const SpaceStats& s, const Settings& settings);

// One run's successful improvements: (time the evaluation completed, new best objective), in
// time order.
using Trace = std::vector<std::pair<double, double>>;

struct Curve {
  std::vector<double> random;    // f_random(t) per time point
  std::vector<double> strategy;  // f_strategy(t)
  std::vector<double> score;     // P(t); NaN where undefined
  double mean = 0;               // the score: mean of the defined P(t) (NaN when none is)
};
Curve score_curve(const SpaceStats& s, const Window& w, const std::vector<Trace>& repeats);

// The same in two steps, so that resamples of the repeats (evaluate's bootstrap) need not walk the
// traces again: per repeat, the rank of its best so far at each time point (-1 before its first
// result); then the curve of the repeats `rows` (a row may appear more than once).
using RankMatrix = std::vector<std::vector<long>>;
RankMatrix rank_matrix(const SpaceStats& s, const Window& w, const std::vector<Trace>& repeats);
Curve score_rows(const SpaceStats& s, const Window& w, const RankMatrix& ranks, const std::vector<std::size_t>& rows);

}  // namespace tune::evaluate

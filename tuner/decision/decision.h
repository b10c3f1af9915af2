// The verdict at one problem size: which configuration wins, which stay indistinguishable from it
// (tied), and, across sizes, which of the tied ones to use so that the choice switches less.
//
// The rule (stated in `tune db --schema`, the report and the end-of-run table):
//   - every configuration has an estimate of the objective's statistic (Kernel Tuner's `time`:
//     the mean of the samples, unless the spec's Tune.statistic says median) with a 95%
//     confidence interval computed from its samples (Student's t for the mean; order statistics
//     for the median); a value without samples has no interval;
//   - the winner is the lowest value;
//   - a configuration is tied with the winner when the difference is within the combined 95%
//     interval, sqrt(hw_c^2 + hw_w^2), or within `tie_margin` of the winner's value (the
//     run-to-run spread of one configuration: a smaller difference does not repeat);
//   - across the sizes of one device, among each size's tied configurations whose value is within
//     `tie_margin` of the winner's, and within the size's noise (the winner's relative 95%
//     half-width) where that is smaller (one tied only by a wide interval is not chosen), the one kept
//     from the previous size wins; where the previous one is not eligible, the eligible one that
//     is fastest over this size and its neighbours (the mean of its value over each size's best,
//     at this size and the sizes before and after it where it was measured; then the winner),
//     which is then kept. A switch only for a difference beyond the noise, and never more than
//     the margin lost. (The neighbours' values weigh against both a configuration chosen for sizes
//     where it won nowhere and a winner by chance; bench/journal.md, "Measurements you can trust".)
// Pure: no database, no GPU.
#pragma once
#include <cstddef>
#include <cstdint>
#include <map>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace tune::decision {

enum class Statistic { mean, median };
std::string_view to_string(Statistic s);
// "mean" or "median"; throws InputError naming the value otherwise.
Statistic parse_statistic(std::string_view s);

// The statistic's value and the half-width of its 95% confidence interval (0 without samples or
// with one sample).
struct Estimate {
  double value = 0;
  double half_width = 0;
  std::size_t samples = 0;
  double relative() const { return value > 0 ? half_width / value : 0; }
};

// Estimate of `statistic` over `samples` (non-empty, finite).
Estimate estimate(std::span<const double> samples, Statistic statistic);
// The same with a value given by the data (an imported Kernel Tuner `time`): the interval still
// comes from the samples' spread around their own statistic; no samples, no interval.
Estimate estimate(double value, std::span<const double> samples, Statistic statistic);

struct Rule {
  Statistic statistic = Statistic::mean;
  double tie_margin = 0.01;  // 1%: differences smaller than this do not repeat from run to run
};

// Default tie margin, also what `--tie-margin` defaults to.
inline constexpr double kDefaultTieMargin = 0.01;

struct Entry {
  std::int64_t id = 0;  // the caller's identifier (configuration id or index)
  Estimate estimate;
};

struct Verdict {
  std::int64_t winner = 0;
  std::vector<std::int64_t> tied;  // the winner first, then the tied ones by value
  double noise = 0;                // the winner's relative half-width
};

// Throws Error on no entries. Entries with a non-positive or non-finite value are ignored (Error
// when none is left).
Verdict decide(std::span<const Entry> entries, const Rule& rule);

// Whether `a` and `b` are indistinguishable by the rule (the tie test, symmetric).
bool tied(const Estimate& a, const Estimate& b, const Rule& rule);

// Which entries to measure again, interleaved, before deciding: those within `widen` times the
// tie test's margin of the best (at least the best and, when there is one, the runner-up), the
// closest first, at most `cap` of them. Returns indices into `entries`.
std::vector<std::size_t> contenders(std::span<const Entry> entries, const Rule& rule, double widen = 3.0,
                                    std::size_t cap = 12);

// Whether `c` is out of the race against `best` while contenders are measured again round after
// round: its whole interval lies above the best's by more than the tie margin, so more samples
// cannot make the two tied or `c` the winner. Unusable estimates are out; `best` itself never is.
bool outpaced(const Estimate& c, const Estimate& best, const Rule& rule);

// Contenders measured in several CUDA contexts (run/context.h), where a kernel of a few
// microseconds takes another time per launch in each, by a level common to the contenders and a
// part of its own: values[j][k] is contender k's estimate in context j, context 0 the one its
// other measurements come from (every row as long as the first; Error otherwise or when a value is
// not positive). Each context's values are taken relative to its level (the geometric mean of its
// row); a contender's value is context 0's level times the mean of its relative values, its half
// width the larger of its context-0 interval and the 95% interval of its relative values across
// the contexts (Student's t, times that level), its samples the sum. One context: row 0 unchanged.
std::vector<Estimate> across_contexts(std::span<const std::vector<Estimate>> values);

// The contenders' values now (their race, after across_contexts) and at an earlier moment of the
// same process (their first pass, seconds before), where a configuration's time relative to the
// others drifts with the moment (decision/policy.h: first_pass_weight). Each moment's values are taken
// relative to its level (the geometric mean over the contenders); a contender's value is now's
// level times (1 - weight) times its relative value now plus weight times its relative value then;
// its half width and samples are now's. `earlier` as long as `now`, every value positive and
// weight in [0, 1) (Error otherwise); weight 0: `now` unchanged.
std::vector<Estimate> across_moments(std::span<const Estimate> now, std::span<const Estimate> earlier, double weight);

// How far above the winner's value the tie-break across sizes may go at a size: `tie_margin`,
// narrowed to the size's noise (the winner's relative 95% half-width) where that is smaller. A
// configuration measured closer than the margin but farther than the noise was slower in this run,
// and other runs of the same sweep measured such a one over 2% slower than the winner they agreed
// on (bench/journal.md, "Measurements you can trust"). No usable noise (NaN, negative): 0.
double keep_margin(double tie_margin, double noise);

// The configurations the tie-break across sizes may use at a size, from its tied set (winner
// first, with values): the winner and the tied ones whose value is within keep_margin(tie_margin,
// noise) of the winner's (one tied only by a wide interval is indistinguishable, not as good), in
// that order.
std::vector<std::int64_t> eligible(std::span<const std::pair<std::int64_t, double>> tied, double tie_margin,
                                   double noise);

// For each size (in sweep order) its tied set (winner first) and every configuration's value there
// over the size's best (`relative[s]`, those measured there): the index into that set of the
// configuration to use (see the rule above). Empty sets give std::nullopt. Throws Error when the
// two differ in length.
std::vector<std::optional<std::size_t>> select_across_sizes(
    const std::vector<std::vector<std::int64_t>>& tied, const std::vector<std::map<std::int64_t, double>>& relative);

// The single configuration that does best over all sizes: among those measured at every size,
// the lowest geometric mean of (its value / the size's best value). `values[s]` maps ids to values
// at size s. Returns std::nullopt when no configuration was measured at every size.
struct SingleBest {
  std::int64_t id = 0;
  std::vector<double> loss;  // per size: its value / the size's best value (>= 1)
};
std::optional<SingleBest> single_best(const std::vector<std::vector<std::pair<std::int64_t, double>>>& values);

// One line stating the rule, for reports and the schema documentation.
std::string describe(const Rule& rule);

}  // namespace tune::decision

#include "evaluate/methodology.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>

#include "common/error.h"

namespace tune::evaluate {

namespace {

double median_of_sorted(const std::vector<double>& v) {
  const std::size_t n = v.size();
  return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2.0;
}

double mean(const std::vector<double>& v) {
  return v.empty() ? 0.0 : std::accumulate(v.begin(), v.end(), 0.0) / static_cast<double>(v.size());
}

}  // namespace

std::size_t round_half_even(double x) {
  const double f = std::floor(x);
  const double frac = x - f;
  auto i = static_cast<std::size_t>(f);
  if (frac > 0.5 || (frac == 0.5 && i % 2 == 1)) ++i;
  return i;
}

SpaceStats::SpaceStats(const std::vector<std::optional<double>>& objective, const std::vector<double>& cost_s)
    : configs_(objective.size()) {
  if (cost_s.size() != objective.size()) throw Error("evaluate: objective and cost tables differ in length");
  std::vector<double> ok_times, failed_times, all_times;
  for (std::size_t c = 0; c < objective.size(); ++c) {
    all_times.push_back(cost_s[c]);
    if (objective[c]) {
      sorted_.push_back(*objective[c]);
      ok_times.push_back(cost_s[c]);
    } else {
      failed_times.push_back(cost_s[c]);
    }
  }
  if (sorted_.empty()) throw InputError("no configuration of the space succeeded: there is nothing to compare with");
  std::sort(sorted_.begin(), sorted_.end());
  median_ = median_of_sorted(sorted_);
  std::sort(all_times.begin(), all_times.end());
  median_time_s_ = median_of_sorted(all_times);
  // total_time_mean_per_feval: the mean of the successful ones plus the failed fraction times the
  // mean of the failed ones (the plain mean when nothing failed).
  time_per_feval_s_ = mean(ok_times);
  if (!failed_times.empty())
    time_per_feval_s_ += static_cast<double>(failed_times.size()) / static_cast<double>(configs_) * mean(failed_times);
  if (!(time_per_feval_s_ > 0) || !(median_time_s_ > 0))
    throw InputError("the cache records no compile, verification or benchmark time: the time budget cannot be derived");
}

std::size_t SpaceStats::rank(double objective) const {
  auto it = std::lower_bound(sorted_.begin(), sorted_.end(), objective);
  return std::min<std::size_t>(static_cast<std::size_t>(it - sorted_.begin()), sorted_.size() - 1);
}

std::size_t baseline_fevals(const SpaceStats& s, double time_s) {
  return round_half_even(std::max(time_s / s.time_per_feval_s(), 1.0));
}

std::size_t baseline_rank(const SpaceStats& s, std::size_t fevals, bool exact_rank) {
  const std::size_t n = s.successful();
  const double m = static_cast<double>(fevals);
  const double expected = m * static_cast<double>(n + 1) / (m + 1) - (exact_rank ? 1 : 0);
  const std::size_t worst_first = std::min(n - 1, round_half_even(std::max(expected, 0.0)));
  return n - 1 - worst_first;
}

double baseline_value(const SpaceStats& s, double time_s, bool exact_rank) {
  return s.sorted()[baseline_rank(s, baseline_fevals(s, time_s), exact_rank)];
}

Cutoff cutoff_point(const SpaceStats& s, double percentile, bool exact_rank) {
  Cutoff c;
  const std::size_t n = s.successful();
  c.objective = s.optimum() + (s.median() - s.optimum()) * (1 - percentile);
  // Worst first, the first objective <= target: ascending, the last one <= target.
  const auto upper = static_cast<std::size_t>(std::upper_bound(s.sorted().begin(), s.sorted().end(), c.objective) -
                                              s.sorted().begin());
  c.index = n - std::max<std::size_t>(upper, 1);
  const double i = static_cast<double>(c.index), nn = static_cast<double>(n);
  c.fevals = static_cast<std::size_t>(std::ceil(exact_rank ? (i + 1) / (nn - i) : i / (nn + 1 - i)));
  c.time_s = static_cast<double>(c.fevals) * s.median_time_s();
  return c;
}

Window window(const SpaceStats& s, const Settings& settings) {
  if (settings.resolution < 2) throw InputError("the time resolution must be at least 2 points");
  Window w;
  w.exact_rank = settings.exact_rank;
  w.start = cutoff_point(s, settings.cutoff_percentile_start, w.exact_rank);
  w.end = cutoff_point(s, settings.cutoff_percentile, w.exact_rank);
  w.time_limit_s = w.end.time_s * (1 + settings.cutoff_margin);
  // numpy.linspace: start + i * step, the last point exactly the end.
  const std::size_t n = settings.resolution;
  const double step = (w.end.time_s - w.start.time_s) / static_cast<double>(n - 1);
  w.times.resize(n);
  for (std::size_t i = 0; i < n; ++i) w.times[i] = w.start.time_s + static_cast<double>(i) * step;
  w.times.back() = w.end.time_s;
  return w;
}

RankMatrix rank_matrix(const SpaceStats& s, const Window& w, const std::vector<Trace>& repeats) {
  const std::size_t points = w.times.size();
  RankMatrix m(repeats.size(), std::vector<long>(points, -1));
  for (std::size_t r = 0; r < repeats.size(); ++r) {
    const Trace& trace = repeats[r];
    std::size_t next = 0;  // improvements at or before t
    for (std::size_t k = 0; k < points; ++k) {
      while (next < trace.size() && trace[next].first <= w.times[k]) ++next;
      if (next > 0) m[r][k] = static_cast<long>(s.rank(trace[next - 1].second));
    }
  }
  return m;
}

Curve score_rows(const SpaceStats& s, const Window& w, const RankMatrix& ranks, const std::vector<std::size_t>& rows) {
  const std::size_t points = w.times.size(), n = s.successful();
  constexpr double nan = std::numeric_limits<double>::quiet_NaN();
  std::vector<double> mean_rank(points, nan);
  for (std::size_t k = 0; k < points; ++k) {
    double sum = 0;
    std::size_t have = 0;
    for (std::size_t r : rows) {
      const long v = ranks[r][k];
      if (v < 0) continue;
      sum += static_cast<double>(v);
      ++have;
    }
    if (have) mean_rank[k] = sum / static_cast<double>(have);
  }
  // Before any repeat has a result: the first value (clipped); never a result: the worst.
  auto first = std::find_if(mean_rank.begin(), mean_rank.end(), [](double v) { return !std::isnan(v); });
  const double fill = first == mean_rank.end() ? static_cast<double>(n - 1) : *first;
  std::replace_if(
      mean_rank.begin(), mean_rank.end(), [](double v) { return std::isnan(v); }, fill);

  Curve c;
  c.random.resize(points);
  c.strategy.resize(points);
  c.score.resize(points);
  double total = 0;
  std::size_t defined = 0;
  for (std::size_t k = 0; k < points; ++k) {
    c.random[k] = baseline_value(s, w.times[k], w.exact_rank);
    c.strategy[k] = s.sorted()[std::min(n - 1, round_half_even(mean_rank[k]))];
    const double denominator = s.optimum() - c.random[k];
    c.score[k] = denominator == 0 ? nan : (c.strategy[k] - c.random[k]) / denominator;
    if (!std::isnan(c.score[k])) {
      total += c.score[k];
      ++defined;
    }
  }
  c.mean = defined ? total / static_cast<double>(defined) : nan;
  return c;
}

Curve score_curve(const SpaceStats& s, const Window& w, const std::vector<Trace>& repeats) {
  std::vector<std::size_t> rows(repeats.size());
  std::iota(rows.begin(), rows.end(), std::size_t{0});
  return score_rows(s, w, rank_matrix(s, w, repeats), rows);
}

}  // namespace tune::evaluate

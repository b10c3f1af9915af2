#include "decision/decision.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdio>
#include <map>
#include <numeric>
#include <string>

#include "common/error.h"

namespace tune::decision {

namespace {

// Two-sided 95% quantile of Student's t with `df` degrees of freedom (1..30 exact to 3 digits,
// then the normal 1.96 approached as 1.96 + 2.4 / df).
double t95(std::size_t df) {
  static constexpr std::array<double, 30> kTable = {
      12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262, 2.228, 2.201, 2.179, 2.160, 2.145, 2.131,
      2.120,  2.110, 2.101, 2.093, 2.086, 2.080, 2.074, 2.069, 2.064, 2.060, 2.056, 2.052, 2.048, 2.045, 2.042};
  if (df == 0) return 0;
  if (df <= kTable.size()) return kTable[df - 1];
  return 1.96 + 2.4 / static_cast<double>(df);
}

// The geometric mean of a row's values (1 for none), the level across_contexts and across_moments
// take values relative to; Error("<what> is not positive") for a value that is not.
double level_of(std::span<const Estimate> row, const std::string& what) {
  double logs = 0;
  for (const Estimate& e : row) {
    if (!(std::isfinite(e.value) && e.value > 0)) throw Error(what + " is not positive");
    logs += std::log(e.value);
  }
  return row.empty() ? 1.0 : std::exp(logs / static_cast<double>(row.size()));
}

bool usable(const Estimate& e) { return std::isfinite(e.value) && e.value > 0 && std::isfinite(e.half_width); }

double median_of_sorted(const std::vector<double>& v) {
  const std::size_t n = v.size();
  return n % 2 == 1 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

// Half-width of the 95% interval of the statistic over sorted samples.
double half_width(const std::vector<double>& sorted, Statistic statistic) {
  const std::size_t n = sorted.size();
  if (n < 2) return 0;
  if (statistic == Statistic::mean) {
    const double mean = std::accumulate(sorted.begin(), sorted.end(), 0.0) / static_cast<double>(n);
    double squares = 0;
    for (double v : sorted) squares += (v - mean) * (v - mean);
    const double sd = std::sqrt(squares / static_cast<double>(n - 1));
    return t95(n - 1) * sd / std::sqrt(static_cast<double>(n));
  }
  // Median: the order statistics at ranks n/2 -+ 0.98 sqrt(n) (binomial, normal approximation);
  // below 6 samples the interval is the whole range.
  if (n < 6) return 0.5 * (sorted.back() - sorted.front());
  const double spread = 0.98 * std::sqrt(static_cast<double>(n));
  const auto lo = static_cast<std::size_t>(std::max(0.0, std::floor(static_cast<double>(n) / 2 - spread)));
  const auto hi = std::min(n - 1, static_cast<std::size_t>(std::ceil(static_cast<double>(n) / 2 + spread)));
  return 0.5 * (sorted[hi] - sorted[lo]);
}

}  // namespace

std::string_view to_string(Statistic s) { return s == Statistic::mean ? "mean" : "median"; }

Statistic parse_statistic(std::string_view s) {
  if (s == "mean") return Statistic::mean;
  if (s == "median") return Statistic::median;
  throw InputError("statistic '" + std::string(s) + "': expected \"mean\" or \"median\"");
}

Estimate estimate(std::span<const double> samples, Statistic statistic) {
  if (samples.empty()) throw Error("estimate: no samples");
  std::vector<double> sorted(samples.begin(), samples.end());
  std::sort(sorted.begin(), sorted.end());
  Estimate e;
  e.samples = sorted.size();
  e.value = statistic == Statistic::mean
                ? std::accumulate(sorted.begin(), sorted.end(), 0.0) / static_cast<double>(sorted.size())
                : median_of_sorted(sorted);
  e.half_width = half_width(sorted, statistic);
  return e;
}

Estimate estimate(double value, std::span<const double> samples, Statistic statistic) {
  Estimate e;
  e.value = value;
  if (samples.empty()) return e;
  std::vector<double> sorted(samples.begin(), samples.end());
  std::sort(sorted.begin(), sorted.end());
  e.samples = sorted.size();
  e.half_width = half_width(sorted, statistic);
  return e;
}

bool tied(const Estimate& a, const Estimate& b, const Rule& rule) {
  const double lo = std::min(a.value, b.value);
  const double diff = std::fabs(a.value - b.value);
  const double noise = std::hypot(a.half_width, b.half_width);
  return diff <= std::max(noise, rule.tie_margin * lo);
}

std::vector<Estimate> across_contexts(std::span<const std::vector<Estimate>> values) {
  if (values.empty()) return {};
  const std::size_t n = values[0].size(), contexts = values.size();
  std::vector<double> level(contexts, 0.0);
  for (std::size_t j = 0; j < contexts; ++j) {
    if (values[j].size() != n)
      throw Error("across_contexts: context " + std::to_string(j) + " has " + std::to_string(values[j].size()) +
                  " contenders, context 0 has " + std::to_string(n));
    level[j] = level_of(values[j], "across_contexts: a value in context " + std::to_string(j));
  }
  std::vector<Estimate> out(values[0].begin(), values[0].end());
  if (contexts < 2) return out;
  for (std::size_t k = 0; k < n; ++k) {
    std::vector<double> rel(contexts);
    std::size_t samples = 0;
    for (std::size_t j = 0; j < contexts; ++j) {
      rel[j] = values[j][k].value / level[j];
      samples += values[j][k].samples;
    }
    const double mean = std::accumulate(rel.begin(), rel.end(), 0.0) / static_cast<double>(contexts);
    double squares = 0;
    for (double r : rel) squares += (r - mean) * (r - mean);
    const double sd = std::sqrt(squares / static_cast<double>(contexts - 1));
    const double across = t95(contexts - 1) * sd / std::sqrt(static_cast<double>(contexts)) * level[0];
    out[k].value = mean * level[0];
    out[k].half_width = std::max(values[0][k].half_width, across);
    out[k].samples = samples;
  }
  return out;
}

std::vector<Estimate> across_moments(std::span<const Estimate> now, std::span<const Estimate> earlier, double weight) {
  if (!(weight >= 0 && weight < 1))
    throw Error("across_moments: weight " + std::to_string(weight) + " is not in [0, 1)");
  if (earlier.size() != now.size())
    throw Error("across_moments: " + std::to_string(earlier.size()) + " earlier values for " +
                std::to_string(now.size()) + " contenders");
  const double now_level = level_of(now, "across_moments: a value now"),
               then_level = level_of(earlier, "across_moments: a value at the earlier moment");
  std::vector<Estimate> out(now.begin(), now.end());
  for (std::size_t k = 0; k < out.size(); ++k)
    out[k].value = now_level * ((1 - weight) * now[k].value / now_level + weight * earlier[k].value / then_level);
  return out;
}

Verdict decide(std::span<const Entry> entries, const Rule& rule) {
  if (entries.empty()) throw Error("decide: no configurations");
  std::vector<const Entry*> order;
  for (const auto& e : entries)
    if (usable(e.estimate)) order.push_back(&e);
  if (order.empty()) throw Error("decide: no configuration has a positive, finite value");
  std::stable_sort(order.begin(), order.end(),
                   [](const Entry* a, const Entry* b) { return a->estimate.value < b->estimate.value; });
  Verdict v;
  const Entry& w = *order.front();
  v.winner = w.id;
  v.noise = w.estimate.relative();
  for (const Entry* e : order)
    if (e == &w || tied(e->estimate, w.estimate, rule)) v.tied.push_back(e->id);
  return v;
}

std::vector<std::size_t> contenders(std::span<const Entry> entries, const Rule& rule, double widen, std::size_t cap) {
  std::vector<std::size_t> order;
  for (std::size_t i = 0; i < entries.size(); ++i)
    if (usable(entries[i].estimate)) order.push_back(i);
  std::stable_sort(order.begin(), order.end(),
                   [&](std::size_t a, std::size_t b) { return entries[a].estimate.value < entries[b].estimate.value; });
  std::vector<std::size_t> out;
  if (order.empty() || cap == 0) return out;
  const Estimate& best = entries[order.front()].estimate;
  for (std::size_t i : order) {
    if (out.size() >= cap) break;
    const Estimate& e = entries[i].estimate;
    const double margin = widen * std::max(std::hypot(e.half_width, best.half_width), rule.tie_margin * best.value);
    // the best and the runner-up always: the decision between the two closest is worth a re-take
    if (out.size() < 2 || e.value - best.value <= margin) out.push_back(i);
  }
  return out;
}

bool outpaced(const Estimate& c, const Estimate& best, const Rule& rule) {
  if (!usable(c)) return true;
  if (!usable(best)) return false;
  return c.value - c.half_width > (best.value + best.half_width) * (1 + rule.tie_margin);
}

double keep_margin(double tie_margin, double noise) {
  return std::isfinite(noise) && noise >= 0 ? std::min(tie_margin, noise) : 0.0;
}

std::vector<std::int64_t> eligible(std::span<const std::pair<std::int64_t, double>> tied, double tie_margin,
                                   double noise) {
  std::vector<std::int64_t> out;
  if (tied.empty()) return out;
  const double limit = tied.front().second * (1.0 + keep_margin(tie_margin, noise));
  for (std::size_t i = 0; i < tied.size(); ++i)
    if (i == 0 || tied[i].second <= limit) out.push_back(tied[i].first);
  return out;
}

std::vector<std::optional<std::size_t>> select_across_sizes(
    const std::vector<std::vector<std::int64_t>>& tied, const std::vector<std::map<std::int64_t, double>>& relative) {
  if (relative.size() != tied.size())
    throw Error("select_across_sizes: " + std::to_string(tied.size()) + " tied sets but " +
                std::to_string(relative.size()) + " sizes of values");
  // The mean of `id`'s relative value at size s and its neighbours where it was measured there.
  auto around = [&](std::size_t s, std::int64_t id) {
    double sum = 0;
    int n = 0;
    for (std::size_t t = s == 0 ? 0 : s - 1; t <= s + 1 && t < tied.size(); ++t)
      if (const auto it = relative[t].find(id); it != relative[t].end() && std::isfinite(it->second))
        sum += it->second, ++n;
    return n > 0 ? sum / n : INFINITY;
  };
  std::vector<std::optional<std::size_t>> out(tied.size());
  std::optional<std::int64_t> kept;
  for (std::size_t s = 0; s < tied.size(); ++s) {
    if (tied[s].empty()) continue;  // no result: neither breaks nor extends the kept one
    const auto at = kept ? std::find(tied[s].begin(), tied[s].end(), *kept) : tied[s].end();
    std::size_t pick = 0;
    if (at != tied[s].end()) {
      pick = static_cast<std::size_t>(at - tied[s].begin());
    } else {
      double best = around(s, tied[s][0]);
      for (std::size_t i = 1; i < tied[s].size(); ++i)
        if (const double m = around(s, tied[s][i]); m < best) best = m, pick = i;
    }
    out[s] = pick;
    kept = tied[s][pick];
  }
  return out;
}

std::optional<SingleBest> single_best(const std::vector<std::vector<std::pair<std::int64_t, double>>>& values) {
  if (values.empty()) return std::nullopt;
  std::vector<double> best(values.size(), 0);
  std::map<std::int64_t, std::vector<double>> by_id;  // id -> value per size (NaN: not measured)
  for (std::size_t s = 0; s < values.size(); ++s) {
    double b = INFINITY;
    for (const auto& [id, v] : values[s])
      if (std::isfinite(v) && v > 0) b = std::min(b, v);
    best[s] = b;
    for (const auto& [id, v] : values[s]) {
      auto& row = by_id.try_emplace(id, values.size(), NAN).first->second;
      if (std::isfinite(v) && v > 0) row[s] = v;
    }
  }
  std::optional<SingleBest> out;
  double best_score = INFINITY;
  for (const auto& [id, row] : by_id) {
    double log_sum = 0;
    bool everywhere = true;
    for (std::size_t s = 0; s < row.size() && everywhere; ++s) {
      everywhere = std::isfinite(row[s]) && std::isfinite(best[s]);
      if (everywhere) log_sum += std::log(row[s] / best[s]);
    }
    if (!everywhere || log_sum >= best_score) continue;
    best_score = log_sum;
    SingleBest sb;
    sb.id = id;
    for (std::size_t s = 0; s < row.size(); ++s) sb.loss.push_back(row[s] / best[s]);
    out = std::move(sb);
  }
  return out;
}

std::string describe(const Rule& rule) {
  char buf[400];
  std::snprintf(buf, sizeof buf,
                "winner: the lowest %s time; tied: within the combined 95%% confidence interval or within %.1f%% "
                "of the winner; across sizes the configuration kept from the previous size is used while it is tied "
                "and within %.1f%% and the size's noise, else the tied one fastest over this size and its neighbours",
                std::string(to_string(rule.statistic)).c_str(), 100.0 * rule.tie_margin, 100.0 * rule.tie_margin);
  return buf;
}

}  // namespace tune::decision

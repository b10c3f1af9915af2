#include "evaluate/select.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <numeric>

#include "common/error.h"

namespace tune::evaluate {

namespace {

std::optional<double> score(const Result& r, std::size_t s, std::size_t p, std::optional<std::size_t> b) {
  const Cell& c = r.cells[s][p];
  if (!c.curve) return std::nullopt;
  const double v = b ? (*b < c.resampled.size() ? c.resampled[*b] : NAN) : c.curve->mean;
  if (std::isnan(v)) return std::nullopt;
  return v;
}

double percentile(std::vector<double> v, double q) {
  std::sort(v.begin(), v.end());
  const double at = q * static_cast<double>(v.size() - 1);
  const auto lo = static_cast<std::size_t>(std::floor(at));
  const std::size_t hi = std::min(lo + 1, v.size() - 1);
  return v[lo] + (v[hi] - v[lo]) * (at - static_cast<double>(lo));
}

std::string fmt(const char* f, double v) {
  char buf[64];
  std::snprintf(buf, sizeof buf, f, v);
  return buf;
}

std::string pad(const std::string& s, std::size_t w, bool left) {
  if (s.size() >= w) return s;
  return left ? std::string(w - s.size(), ' ') + s : s + std::string(w - s.size(), ' ');
}

std::string opt(const std::optional<double>& v) { return v ? fmt("%.3f", *v) : "-"; }

}  // namespace

Summary summarize(const Result& r, std::size_t strategy) {
  Summary out;
  out.mean = r.mean(strategy);
  for (std::size_t p = 0; p < r.problems.size(); ++p) {
    auto v = score(r, strategy, p, std::nullopt);
    if (v && (!out.worst || *v < *out.worst)) out.worst = v, out.worst_cache = r.problems[p];
  }
  if (!out.mean || r.problems.empty()) return out;
  const std::size_t resamples = r.options.resamples;
  std::vector<double> means;
  for (std::size_t b = 0; b < resamples; ++b) {
    double sum = 0;
    bool all = true;
    for (std::size_t p = 0; p < r.problems.size() && all; ++p) {
      auto v = score(r, strategy, p, b);
      all = v.has_value();
      if (all) sum += *v;
    }
    if (all) means.push_back(sum / static_cast<double>(r.problems.size()));
  }
  if (!means.empty()) out.low = percentile(means, 0.025), out.high = percentile(means, 0.975);
  return out;
}

std::optional<std::size_t> choose(const Result& r, const std::vector<std::size_t>& caches,
                                  std::optional<std::size_t> b) {
  std::optional<std::size_t> best_safe, best_worst;
  double safe_mean = -INFINITY, worst_of_best = -INFINITY;
  for (std::size_t s = 0; s < r.strategies.size(); ++s) {
    double sum = 0, worst = INFINITY;
    bool all = !caches.empty();
    for (std::size_t p : caches) {
      auto v = score(r, s, p, b);
      if (!v) {
        all = false;
        break;
      }
      sum += *v;
      worst = std::min(worst, *v);
    }
    if (!all) continue;
    const double mean = sum / static_cast<double>(caches.size());
    if (worst >= 0 && mean > safe_mean) safe_mean = mean, best_safe = s;
    if (worst > worst_of_best) worst_of_best = worst, best_worst = s;
  }
  return best_safe ? best_safe : best_worst;
}

Selection leave_one_out(const Result& r) {
  const std::size_t np = r.problems.size();
  if (np < 2) throw InputError("tune evaluate --leave-one-out: needs at least two caches, not " + std::to_string(np));
  Selection out;
  std::vector<std::size_t> all(np);
  std::iota(all.begin(), all.end(), std::size_t{0});
  std::vector<double> held;
  for (std::size_t p = 0; p < np; ++p) {
    Fold f;
    f.held_out = p;
    std::vector<std::size_t> others;
    for (std::size_t q = 0; q < np; ++q)
      if (q != p) others.push_back(q);
    f.chosen = choose(r, others);
    if (f.chosen) f.held_out_score = score(r, *f.chosen, p, std::nullopt);
    if (f.held_out_score) held.push_back(*f.held_out_score);
    out.folds.push_back(f);
  }
  if (held.size() == np) {
    out.held_out_mean = std::accumulate(held.begin(), held.end(), 0.0) / static_cast<double>(np);
    out.held_out_worst = *std::min_element(held.begin(), held.end());
  }
  out.choice = choose(r, all);
  if (out.choice && r.options.resamples > 0) {
    std::size_t same = 0;
    for (std::size_t b = 0; b < r.options.resamples; ++b) same += choose(r, all, b) == out.choice;
    out.stability = static_cast<double>(same) / static_cast<double>(r.options.resamples);
  }
  return out;
}

std::string format_summary(const Result& r) {
  std::size_t sw = 8;
  for (const auto& n : r.strategies) sw = std::max(sw, n.size());
  std::string out = "\n" + pad("strategy", sw, false) + pad("mean", 9, true) + "  95% interval     " +
                    pad("worst", 7, true) + "  worst cache\n";
  for (std::size_t i = 0; i < r.strategies.size(); ++i) {
    const Summary m = summarize(r, i);
    const std::string interval = m.low ? "[" + fmt("%.3f", *m.low) + ", " + fmt("%.3f", *m.high) + "]" : "-";
    out += pad(r.strategies[i], sw, false) + pad(opt(m.mean), 9, true) + "  " + pad(interval, 16, false) + " " +
           pad(opt(m.worst), 7, true) + "  " + m.worst_cache + "\n";
  }
  return out;
}

std::string format_selection(const Result& r, const Selection& s) {
  std::size_t sw = 8, cw = 8;
  for (const auto& n : r.strategies) sw = std::max(sw, n.size());
  for (const auto& p : r.problems) cw = std::max(cw, p.size());
  std::string out =
      "\nleave one cache out (rule: the best mean among strategies >= 0 on every other cache, else the best worst "
      "cache)\n" +
      pad("held-out cache", cw, false) + "  " + pad("chosen on the others", std::max<std::size_t>(sw, 20), false) +
      "  held-out score\n";
  for (const Fold& f : s.folds)
    out += pad(r.problems[f.held_out], cw, false) + "  " +
           pad(f.chosen ? r.strategies[*f.chosen] : "-", std::max<std::size_t>(sw, 20), false) + "  " +
           pad(opt(f.held_out_score), 14, true) + "\n";
  out += "held-out scores: mean " + opt(s.held_out_mean) + ", worst " + opt(s.held_out_worst) + "\n";
  out += "chosen on every cache: " + (s.choice ? r.strategies[*s.choice] : std::string("-"));
  if (s.choice && r.options.resamples > 0)
    out += " (chosen again on " + fmt("%.0f", 100 * s.stability) + "% of " + std::to_string(r.options.resamples) +
           " bootstrap resamples)";
  return out + "\n";
}

nlohmann::ordered_json summary_json(const Result& r) {
  using ojson = nlohmann::ordered_json;
  auto num = [](const std::optional<double>& v) { return v ? ojson(*v) : ojson(nullptr); };
  ojson j = ojson::array();
  for (std::size_t i = 0; i < r.strategies.size(); ++i) {
    const Summary m = summarize(r, i);
    j.push_back({{"strategy", r.strategies[i]},
                 {"mean", num(m.mean)},
                 {"low", num(m.low)},
                 {"high", num(m.high)},
                 {"worst", num(m.worst)},
                 {"worst_cache", m.worst_cache}});
  }
  return j;
}

nlohmann::ordered_json selection_json(const Result& r, const Selection& s) {
  using ojson = nlohmann::ordered_json;
  auto num = [](const std::optional<double>& v) { return v ? ojson(*v) : ojson(nullptr); };
  ojson j;
  j["folds"] = ojson::array();
  for (const Fold& f : s.folds)
    j["folds"].push_back({{"held_out", r.problems[f.held_out]},
                          {"chosen", f.chosen ? ojson(r.strategies[*f.chosen]) : ojson(nullptr)},
                          {"held_out_score", num(f.held_out_score)}});
  j["held_out_mean"] = num(s.held_out_mean);
  j["held_out_worst"] = num(s.held_out_worst);
  j["choice"] = s.choice ? ojson(r.strategies[*s.choice]) : ojson(nullptr);
  j["stability"] = s.stability;
  return j;
}

}  // namespace tune::evaluate

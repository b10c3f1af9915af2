#include "tuning/analysis.h"

#include <algorithm>
#include <cstdio>

namespace tune::tuning {

namespace {
std::string best_of(const SizeResult& r) {
  std::string best;
  double top = -1;
  for (const auto& [cfg, v] : r.throughput)
    if (v > top) top = v, best = cfg;
  return best;
}

std::string percent(double ratio) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.0f%%", 100.0 * (1.0 - ratio));
  return buf;
}
}  // namespace

std::vector<SizeFlag> find_flags(const std::vector<SizeResult>& sweep, double dip_ratio, double change_margin) {
  std::vector<SizeFlag> flags;
  for (std::size_t i = 1; i < sweep.size(); ++i) {
    const std::string prev = best_of(sweep[i - 1]), cur = best_of(sweep[i]);
    if (prev.empty() || cur.empty() || prev == cur) continue;
    // the former best, here: within the margin of the new best it still holds (a change in the
    // noise of near-equal configurations is no change); not verified here, it no longer does
    const double top = sweep[i].throughput.at(cur);
    const auto kept = sweep[i].throughput.find(prev);
    if (kept != sweep[i].throughput.end() && kept->second >= (1.0 - change_margin) * top) continue;
    const std::string why = kept == sweep[i].throughput.end()
                                ? "; the former best has no verified result here"
                                : "; the former best is " + percent(kept->second / top) + " slower here";
    flags.push_back({sweep[i].size, "best_changes",
                     "best changes from " + prev + " (at " + sweep[i - 1].size + ") to " + cur + why});
  }
  for (std::size_t i = 1; i + 1 < sweep.size(); ++i) {
    const auto &l = sweep[i - 1], &m = sweep[i], &r = sweep[i + 1];
    // the best throughput at this size against both neighbours
    auto top = [](const SizeResult& s) {
      double t = 0;
      for (const auto& [c, v] : s.throughput) t = std::max(t, v);
      return t;
    };
    double tl = top(l), tm = top(m), tr = top(r);
    if (tl > 0 && tr > 0 && tm > 0 && tm < dip_ratio * std::min(tl, tr)) {
      flags.push_back({m.size, "dip", "best throughput " + percent(tm / std::min(tl, tr)) + " below both neighbouring sizes"});
      continue;
    }
    // a configuration that is good around this size and collapses at it
    std::string worst;
    double worst_ratio = 1;
    for (const auto& [cfg, v] : m.throughput) {
      auto a = l.throughput.find(cfg), b = r.throughput.find(cfg);
      if (a == l.throughput.end() || b == r.throughput.end()) continue;
      double ratio = v / std::min(a->second, b->second);
      bool good_nearby = a->second >= 0.9 * tl && b->second >= 0.9 * tr;
      if (good_nearby && ratio < dip_ratio && ratio < worst_ratio) worst_ratio = ratio, worst = cfg;
    }
    if (!worst.empty())
      flags.push_back({m.size, "dip", worst + " drops " + percent(worst_ratio) + " below both neighbouring sizes"});
  }
  std::map<std::string, std::size_t> order;  // sweep order, not text order ("999" < "1000")
  for (std::size_t i = 0; i < sweep.size(); ++i) order.emplace(sweep[i].size, i);
  std::stable_sort(flags.begin(), flags.end(),
                   [&](const SizeFlag& a, const SizeFlag& b) { return order[a.size] < order[b.size]; });
  return flags;
}

}  // namespace tune::tuning

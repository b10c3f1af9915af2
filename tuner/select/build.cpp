#include "select/build.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>

namespace tune::select {

namespace {

double elements(const Extents& e) { return double(e[0]) * double(e[1]) * double(e[2]); }

unsigned quantize(double regret) {
  const double q = std::round(regret * tune_select::kScale);
  return q < tune_select::kScale ? static_cast<unsigned>(tune_select::kScale)
                                 : static_cast<unsigned>(q);
}

}  // namespace

Data build(std::vector<SizeMeasurements> sizes, const Alignment& alignment, double keep) {
  std::stable_sort(sizes.begin(), sizes.end(),
                   [](const SizeMeasurements& a, const SizeMeasurements& b) {
                     const double ea = elements(a.size), eb = elements(b.size);
                     return ea != eb ? ea < eb : a.size < b.size;
                   });
  std::map<std::string, Extents> align;  // every configuration measured somewhere
  auto align_of = [&](const std::string& key) {
    auto it = align.find(key);
    if (it == align.end()) {
      Extents a = alignment ? alignment(key) : Extents{1, 1, 1};
      for (auto& v : a) v = std::max(v, 1LL);
      it = align.emplace(key, a).first;
    }
    return it->second;
  };
  std::vector<double> best(sizes.size(), std::numeric_limits<double>::infinity());
  std::map<std::string, bool> kept;
  for (std::size_t s = 0; s < sizes.size(); ++s) {
    std::map<Extents, std::vector<std::pair<double, std::string>>> groups;  // per alignment
    for (const auto& [key, t] : sizes[s].times) {
      best[s] = std::min(best[s], t);
      groups[align_of(key)].emplace_back(t, key);
    }
    for (auto& [unused, g] : groups) {
      std::sort(g.begin(), g.end());
      for (std::size_t i = 0;
           i < g.size() && i < tune_select::kTop && g[i].first <= keep * g[0].first; ++i)
        kept[g[i].second] = true;
    }
    if (!sizes[s].decision.empty()) kept[sizes[s].decision] = true;
  }
  // mean regret over the sizes that measured each candidate
  std::map<std::string, std::pair<double, int>> mean;
  for (std::size_t s = 0; s < sizes.size(); ++s)
    for (const auto& [key, t] : sizes[s].times)
      if (kept.count(key) && best[s] > 0) {
        auto& m = mean[key];
        m.first += t / best[s];
        ++m.second;
      }
  Data d;
  for (const auto& [key, unused] : kept) d.variants.push_back(key);
  auto avg = [&](const std::string& k) {
    const auto it = mean.find(k);
    return it == mean.end() || it->second.second == 0 ? std::numeric_limits<double>::infinity()
                                                      : it->second.first / it->second.second;
  };
  std::stable_sort(d.variants.begin(), d.variants.end(),
                   [&](const std::string& a, const std::string& b) {
                     const double ma = avg(a), mb = avg(b);
                     return ma != mb ? ma < mb : a < b;
                   });
  std::map<std::string, unsigned> index;
  for (unsigned v = 0; v < d.variants.size(); ++v) {
    index[d.variants[v]] = v;
    const Extents a = align_of(d.variants[v]);
    d.candidates.push_back({v, {a[0], a[1], a[2]}});
  }
  const std::size_t n = d.candidates.size();
  d.regret.assign(sizes.size() * n, 0);
  std::map<unsigned, int> wins;
  for (std::size_t s = 0; s < sizes.size(); ++s) {
    const SizeMeasurements& m = sizes[s];
    for (const auto& [key, t] : m.times)
      if (const auto it = index.find(key); it != index.end() && best[s] > 0)
        d.regret[s * n + it->second] = quantize(t / best[s]);
    const auto dec = index.find(m.decision);
    const unsigned decision = dec == index.end() ? 0 : dec->second;
    const double best_ms = std::isfinite(best[s]) ? best[s] : m.decision_ms;
    d.points.push_back({m.size[0], m.size[1], m.size[2], decision, m.decision_ms, best_ms});
    ++wins[decision];
  }
  int most = -1;
  for (const auto& p : d.points)  // ascending: the last maximum is at the largest size
    if (wins[p.decision] >= most) most = wins[p.decision], d.fallback = p.decision;
  return d;
}

}  // namespace tune::select

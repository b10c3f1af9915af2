#include "search/continuous.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>
#include <string>

#include "common/error.h"

namespace tune::search {
namespace {
std::string number(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%g", v);
  return buf;
}
}  // namespace

Continuous::Continuous(const space::Space& space, Scale scale) : space_(space) {
  std::size_t most = 1;
  for (std::size_t p = 0; p < space.num_params(); ++p) {
    count_.push_back(space.values(p).size());
    most = std::max(most, count_.back());
    if (count_.back() > 1) active_.push_back(p);
  }
  for (std::size_t n : count_)
    step_.push_back(scale == Scale::step ? 1.0 / static_cast<double>(most) : 1.0 / static_cast<double>(n));
}

std::vector<double> Continuous::position(std::size_t config) const {
  const auto idx = space_.indices(config);
  std::vector<double> x(dims());
  for (std::size_t p = 0; p < dims(); ++p) x[p] = (idx[p] + 0.5) * step_[p];
  return x;
}

std::vector<double> Continuous::random_position(Rng& rng) const {
  std::vector<double> x(dims());
  for (std::size_t p = 0; p < dims(); ++p) x[p] = rng.uniform() * upper(p);
  return x;
}

void Continuous::clamp(std::span<double> x) const {
  for (std::size_t p = 0; p < dims(); ++p) x[p] = std::isnan(x[p]) ? 0.0 : std::clamp(x[p], 0.0, upper(p));
}

space::Index Continuous::index(std::size_t p, double x) const {
  const double cell = std::floor(x / step_[p]);
  if (!(cell > 0)) return 0;  // also NaN
  return static_cast<space::Index>(std::min(cell, static_cast<double>(count_[p] - 1)));
}

double Continuous::distance2(std::span<const double> x, std::size_t config) const {
  const auto idx = space_.indices(config);
  double d = 0;
  for (std::size_t p = 0; p < dims(); ++p) {
    const double e = x[p] - (idx[p] + 0.5) * step_[p];
    d += e * e;
  }
  return d;
}

std::size_t Continuous::snap(std::span<const double> x, Rng& rng) const {
  const std::size_t np = dims();
  std::vector<space::Index> idx(np);
  for (std::size_t p = 0; p < np; ++p) idx[p] = index(p, x[p]);
  if (auto c = space_.find(idx)) return *c;

  // One parameter changed: try the changes in order of the distance they add.
  struct Move {
    double extra;
    std::size_t p;
    space::Index v;
  };
  std::vector<Move> moves;
  for (std::size_t p : active_) {
    const double here = x[p] - (idx[p] + 0.5) * step_[p];
    for (std::size_t v = 0; v < count_[p]; ++v) {
      if (v == idx[p]) continue;
      const double e = x[p] - (v + 0.5) * step_[p];
      moves.push_back({e * e - here * here, p, static_cast<space::Index>(v)});
    }
  }
  std::sort(moves.begin(), moves.end(), [](const Move& a, const Move& b) {
    return a.extra != b.extra ? a.extra < b.extra : (a.p != b.p ? a.p < b.p : a.v < b.v);
  });
  for (const Move& m : moves) {
    const space::Index keep = idx[m.p];
    idx[m.p] = m.v;
    if (auto c = space_.find(idx)) return *c;
    idx[m.p] = keep;
  }

  // Nearest of all valid configurations (or of a random sample of a huge space).
  const std::size_t n = space_.size();
  const bool all = n <= kScanLimit;
  const std::size_t tries = all ? n : kScanSample;
  std::size_t best = 0;
  double best_d = std::numeric_limits<double>::infinity();
  for (std::size_t i = 0; i < tries; ++i) {
    const std::size_t c = all ? i : static_cast<std::size_t>(rng.below(n));
    const double d = distance2(x, c);
    if (d < best_d) best_d = d, best = c;
  }
  return best;
}

double evaluate_fresh(Context& ctx, const Continuous& box, std::vector<double>& x) {
  std::size_t c = box.snap(x, ctx.rng());
  if (ctx.visited(c)) {
    c = fresh_near(ctx, c);
    x = box.position(c);
  }
  return ctx.cost(c);
}

std::size_t fresh_near(Context& ctx, std::size_t config) {
  if (!ctx.visited(config)) return config;
  const auto options = ctx.unvisited_neighbours(config, Neighbourhood::hamming);
  if (!options.empty()) return options[ctx.rng().below(options.size())];
  return ctx.random_unvisited();
}

std::vector<std::size_t> initial_population(Context& ctx, std::size_t n) {
  std::vector<std::size_t> pop;
  auto has = [&](std::size_t c) { return std::find(pop.begin(), pop.end(), c) != pop.end(); };
  for (std::size_t c : ctx.starts())
    if (pop.size() < n && !has(c)) pop.push_back(c);
  n = std::min(n, ctx.size());
  for (std::size_t tries = 0; pop.size() < n && tries < 100 * n; ++tries) {
    const std::size_t c = ctx.random_unvisited();
    if (!has(c)) pop.push_back(c);
  }
  for (std::size_t c = 0; pop.size() < n && c < ctx.size(); ++c)  // tiny spaces, mostly visited
    if (!has(c)) pop.push_back(c);
  return pop;
}

std::size_t count_option(const Context& ctx, const std::string& key, long fallback, long min) {
  const long v = ctx.option(key, fallback);
  if (v < min || v > 100'000'000)
    throw InputError("--strategy-option " + key + "=" + std::to_string(v) + ": must be an integer from " +
                     std::to_string(min) + " to 100000000");
  return static_cast<std::size_t>(v);
}

double real_option(const Context& ctx, const std::string& key, double fallback, double lo, double hi) {
  const double v = ctx.option(key, fallback);
  if (!std::isfinite(v) || v < lo || v > hi)
    throw InputError("--strategy-option " + key + "=" + ctx.option(key, std::string("")) + ": must be a number from " +
                     number(lo) + " to " + number(hi));
  return v;
}

}  // namespace tune::search

#include "search/bayes_opt_parts.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>

#include "common/error.h"
#include "search/continuous.h"

namespace tune::search::bo {
namespace {
constexpr double kDiscount = 0.95;     // multi-advanced: discount of older results
constexpr double kRequired = 0.1;      // multi-advanced: 10% better/worse than the mean
constexpr std::size_t kStreak = 5;     // multi-advanced: rounds before a change
constexpr std::size_t kDesigns = 100;  // random Latin hypercubes tried for the maximin one
}  // namespace

Settings read_settings(const Context& ctx) {
  Settings s;
  const std::string kernel = ctx.option("covariancekernel", std::string("matern32"));
  if (kernel == "matern32")
    s.kernel = gp::Kernel::matern32;
  else if (kernel == "matern52")
    s.kernel = gp::Kernel::matern52;
  else
    throw InputError("--strategy-option covariancekernel=" + kernel + ": bayes_opt supports matern32, matern52");
  s.lengthscale = real_option(ctx, "covariancelengthscale", 1.5, 1e-6, 1e6);
  const std::string method = ctx.option("method", std::string("multi-advanced"));
  if (method == "ei")
    s.method = Method::ei;
  else if (method == "poi")
    s.method = Method::poi;
  else if (method == "lcb")
    s.method = Method::lcb;
  else if (method == "multi" || method == "multi-fast" || method == "multi-ultrafast")
    s.method = Method::multi;
  else if (method == "multi-advanced" || method == "advanced_multi")
    s.method = Method::multi_advanced;
  else
    throw InputError(
        "--strategy-option method=" + method +
        ": bayes_opt supports ei, poi, lcb, multi, multi-fast, multi-ultrafast, multi-advanced, advanced_multi");
  const std::string sampling = ctx.option("samplingmethod", std::string("lhs"));
  if (sampling == "lhs" || sampling == "LHS")
    s.lhs = true;
  else if (sampling == "random")
    s.lhs = false;
  else
    throw InputError("--strategy-option samplingmethod=" + sampling + ": bayes_opt supports lhs, random");
  s.fit = ctx.option("covariancelengthscale", std::string()).empty();
  s.popsize = count_option(ctx, "popsize", 20, 1);
  s.maxiter = count_option(ctx, "maxiter", 100'000'000, 0);
  return s;
}

std::vector<std::size_t> latin_hypercube(const space::Space& space, std::size_t n, Rng& rng) {
  const Continuous box(space, Scale::unit);
  const auto& dims = box.active();
  if (n == 0) return {};
  std::vector<std::vector<double>> best, design(n, std::vector<double>(box.dims()));
  double best_spread = -1;
  std::vector<std::size_t> perm(n);
  for (std::size_t t = 0; t < kDesigns; ++t) {
    for (std::size_t p = 0; p < box.dims(); ++p) {
      std::iota(perm.begin(), perm.end(), std::size_t{0});
      for (std::size_t i = n; i > 1; --i) std::swap(perm[i - 1], perm[rng.below(i)]);
      for (std::size_t j = 0; j < n; ++j)
        design[j][p] = (perm[j] + rng.uniform()) / static_cast<double>(n) * box.upper(p);
    }
    double spread = std::numeric_limits<double>::infinity();
    for (std::size_t a = 0; a < n; ++a)
      for (std::size_t b = a + 1; b < n; ++b) {
        double d = 0;
        for (std::size_t p : dims) d += (design[a][p] - design[b][p]) * (design[a][p] - design[b][p]);
        spread = std::min(spread, d);
      }
    if (spread > best_spread) best_spread = spread, best = design;
  }
  std::vector<std::size_t> snapped;
  for (const auto& x : best) {
    const std::size_t c = box.snap(x, rng);
    if (std::find(snapped.begin(), snapped.end(), c) == snapped.end()) snapped.push_back(c);
  }
  // Farthest-first order from the first point, over the snapped configurations.
  std::vector<std::size_t> out{snapped.front()};
  std::vector<double> gap(snapped.size(), std::numeric_limits<double>::infinity());
  std::vector<bool> used(snapped.size(), false);
  used[0] = true;
  while (out.size() < snapped.size()) {
    const auto last = box.position(out.back());
    std::size_t far = 0;
    double far_gap = -1;
    for (std::size_t i = 0; i < snapped.size(); ++i) {
      if (used[i]) continue;
      gap[i] = std::min(gap[i], box.distance2(last, snapped[i]));
      if (gap[i] > far_gap) far_gap = gap[i], far = i;
    }
    used[far] = true;
    out.push_back(snapped[far]);
  }
  return out;
}

double budget_evaluations(const Context& ctx) {
  double evaluations = std::numeric_limits<double>::infinity();
  if (ctx.budget().max_fevals) evaluations = static_cast<double>(*ctx.budget().max_fevals);
  if (ctx.budget().time_limit_s && ctx.evaluations() > 0 && ctx.elapsed_s() > 0)
    evaluations =
        std::min(evaluations, *ctx.budget().time_limit_s / (ctx.elapsed_s() / static_cast<double>(ctx.evaluations())));
  return evaluations;
}

std::size_t initial_sample_size(const Context& ctx, std::size_t popsize) {
  const double evaluations = budget_evaluations(ctx);
  const double share = std::max(static_cast<double>(kMinInitial), std::floor(evaluations / 20));
  return std::min(popsize, static_cast<std::size_t>(std::min(share, 1e9)));
}

Portfolio::Portfolio(Method method) : method_(method) {
  switch (method) {
    case Method::ei:
      active_ = {Acquisition::ei};
      break;
    case Method::poi:
      active_ = {Acquisition::poi};
      break;
    case Method::lcb:
      active_ = {Acquisition::lcb};
      break;
    default:
      active_ = {Acquisition::ei, Acquisition::poi, Acquisition::lcb};
  }
}

Acquisition Portfolio::next() { return active_[turn_ % active_.size()]; }

void Portfolio::record(Acquisition af, double objective) {
  ++turn_;
  if (method_ != Method::multi_advanced || active_.size() < 2) return;
  results_[static_cast<std::size_t>(af)].push_back(objective);
  if (turn_ >= active_.size()) end_of_round(), turn_ = 0;
}

void Portfolio::end_of_round() {
  std::array<double, 3> discounted{};
  double mean = 0;
  for (Acquisition a : active_) {
    const auto& r = results_[static_cast<std::size_t>(a)];
    double d = 0;
    for (std::size_t i = 0; i < r.size(); ++i) d += r[i] * std::pow(kDiscount, static_cast<double>(r.size() - 1 - i));
    discounted[static_cast<std::size_t>(a)] = d;
    mean += d / static_cast<double>(active_.size());
  }
  for (Acquisition a : active_) {
    const auto i = static_cast<std::size_t>(a);
    if (discounted[i] > mean * (1 + kRequired))
      ++worse_[i];
    else if (discounted[i] < mean * (1 - kRequired))
      ++better_[i];
  }
  // Drop the AF that has been worse most often (ties: the worse discounted result); else keep the
  // one that has been better most often alone.
  auto pick = [&](const std::array<std::size_t, 3>& count, bool worst) -> std::optional<Acquisition> {
    std::optional<Acquisition> out;
    std::size_t most = 0;
    for (Acquisition a : active_) most = std::max(most, count[static_cast<std::size_t>(a)]);
    if (most < kStreak) return std::nullopt;
    for (Acquisition a : active_) {
      const auto i = static_cast<std::size_t>(a);
      if (count[i] != most) continue;
      if (!out || (worst ? discounted[i] > discounted[static_cast<std::size_t>(*out)]
                         : discounted[i] < discounted[static_cast<std::size_t>(*out)]))
        out = a;
    }
    return out;
  };
  if (auto w = pick(worse_, true)) {
    std::erase(active_, *w);
    worse_ = {}, better_ = {};
  } else if (auto b = pick(better_, false)) {
    active_ = {*b};
  }
}

}  // namespace tune::search::bo

// Bayesian optimisation after Kernel Tuner's strategies/bayes_opt.py (Willemsen's BO for
// auto-tuning): a Gaussian process (bayes_gp.h) over the value indices of the parameters that have
// more than one value, normalised as Kernel Tuner does ((index + 0.5) / the largest value count),
// with a fixed Matern kernel; the next configuration is the unvisited one that maximises the
// acquisition function over the discrete valid space (all of it, or a random pool of kPool
// configurations plus the neighbours of every new best in larger spaces).
//  - Objectives are modelled as log(objective) (when every objective is positive), normalised to
//    zero mean and unit variance; a failed configuration counts as the worst value observed.
//  - popsize initial configurations: ctx.starts() first, then a maximin Latin hypercube snapped to
//    valid configurations (samplingmethod=lhs) or uniform random ones (random).
//  - method: ei, poi, lcb, multi (ei, poi and lcb in turn), multi-advanced (alias advanced_multi:
//    Kernel Tuner's portfolio that drops an acquisition function whose discounted results stay 10%
//    worse than the mean and keeps one alone that stays 10% better), and multi-fast /
//    multi-ultrafast as aliases of multi (the model here is exact after every evaluation, so the
//    variants that trade stale predictions for speed have nothing to save).
//  - maxiter: model-guided evaluations after the initial sample (default: until the budget ends).
// Cost per evaluation: O(n^2 + pool*n) for n observations; beyond kMaxModel observations the model
// is refitted on the best and the most recent ones.
#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <numeric>
#include <optional>
#include <string>

#include "common/error.h"
#include "search/bayes_gp.h"
#include "search/bayes_opt_parts.h"
#include "search/continuous.h"
#include "search/strategies.h"

namespace tune::search::strategy {
namespace {
constexpr std::size_t kPool = 32768;  // candidates scored per step in larger spaces
}  // namespace

void bayes_opt(Context& ctx) {
  using namespace bo;
  const Settings s = read_settings(ctx);
  const space::Space& space = ctx.space();
  Rng& rng = ctx.rng();

  Model model(space, s);
  std::vector<std::size_t> pool;
  if (space.size() <= kPool) {
    for (std::size_t c = 0; c < space.size(); ++c)
      if (!ctx.visited(c)) pool.push_back(c);
  } else {
    for (std::size_t tries = 0; pool.size() < kPool && tries < 4 * kPool; ++tries)
      pool.push_back(ctx.random_unvisited());
    std::sort(pool.begin(), pool.end());
    pool.erase(std::unique(pool.begin(), pool.end()), pool.end());
  }
  model.gp().add_candidates(pool);
  const bool sampled_pool = space.size() > kPool;

  auto evaluate = [&](std::size_t c) {
    const double best_before = ctx.best_objective();
    const std::optional<double> r = ctx.evaluate(c);
    model.observe(c, r);
    if (sampled_pool && r && *r < best_before) {  // look around every new best
      auto around = ctx.neighbours(c, Neighbourhood::hamming);
      std::erase_if(around, [&](std::size_t n) { return ctx.visited(n); });
      model.gp().add_candidates(around);
    }
    return r;
  };

  // Initial sample.
  std::vector<std::size_t> first;
  for (std::size_t c : ctx.starts())
    if (std::find(first.begin(), first.end(), c) == first.end()) first.push_back(c);
  if (s.lhs && first.size() < s.popsize)
    for (std::size_t c : latin_hypercube(space, s.popsize - first.size(), rng))
      if (std::find(first.begin(), first.end(), c) == first.end()) first.push_back(c);
  std::size_t sampled = 0;
  for (std::size_t c : first) {
    if (sampled >= s.popsize) break;
    if (!ctx.visited(c)) evaluate(c), ++sampled;
  }
  while (sampled < s.popsize || model.ok_count() < 2) evaluate(ctx.random_unvisited()), ++sampled;

  Portfolio portfolio(s.method);
  for (std::size_t it = 0; it < s.maxiter; ++it) {
    const Acquisition af = portfolio.next();
    const auto pick = model.best_candidate(af);
    const std::size_t c = pick ? *pick : ctx.random_unvisited();
    const std::optional<double> r = evaluate(c);
    portfolio.record(af, r, model);
  }
}

}  // namespace tune::search::strategy

// Bayesian optimisation after Kernel Tuner's strategies/bayes_opt.py (Willemsen's BO for
// auto-tuning), made to score well by the FGCS 2024 methodology on measured spaces:
//  - Model: a Gaussian process (bayes_gp.h) over the value indices of the parameters that have
//    more than one value, each scaled to [0, 1], with a Matern 3/2 or 5/2 kernel. Without
//    covariancelengthscale, one lengthscale per parameter and the noise are fitted by maximum
//    likelihood (bayes_fit.h) as the observations grow (x1.5 each time, up to 300 observations);
//    with it, the lengthscale is fixed and isotropic in Kernel Tuner's units (one value step =
//    1 / the largest value count), as Kernel Tuner does.
//  - Objectives are modelled as log(objective) (while every objective is positive), normalised to
//    zero mean and unit variance; a failed configuration counts as the worst value observed.
//  - The next configuration is the unvisited one that maximises the acquisition function over the
//    discrete valid space (all of it, or a random pool of kPool configurations plus the
//    neighbours of every new best in larger spaces). Candidates whose predicted mean lies 4 sds
//    above the best leave the pool until the next refit (bayes_model.cpp).
//  - Every kLocalEvery-th step after the initial sample is model-free: a random unvisited Hamming
//    neighbour of the best configuration that has one. The model alone over-exploits a region it
//    believes in (convolution_milo/A4000: a quarter of the runs spent 200 evaluations in the
//    use_shmem=1 region next to a use_shmem=0 optimum); the local steps find such optima and
//    feed the model (FGCS score over the six benchmark_hub caches, 100 repeats: 0.79; without
//    local steps and pruning 0.78 at 20 repeats, and 4 to 8 times slower).
//  - Initial sample: ctx.starts() first, then a maximin Latin hypercube snapped to valid
//    configurations (samplingmethod=lhs) in farthest-first order, or random configurations
//    (random): popsize of them, fewer when the budget is short (initial_sample_size: a twentieth
//    of the evaluations the budget allows, at least 5), so that a short budget is not spent on
//    the initial sample (convolution_milo/MI250X, a budget of 51 evaluations: 0.03 -> 0.59).
//  - method: ei, poi, lcb, multi (ei, poi and lcb in turn), multi-advanced (default; alias
//    advanced_multi: Kernel Tuner's portfolio that drops an acquisition function whose discounted
//    results stay 10% worse than the mean and keeps one alone that stays 10% better), and
//    multi-fast / multi-ultrafast as aliases of multi (the model here is exact after every
//    evaluation, so the variants that trade stale predictions for speed have nothing to save).
//  - The endgame: once 1 - kEndgame of the evaluations the budget allows are spent (max_fevals,
//    or the time limit over the mean time per evaluation so far), every step is a local step. With
//    a fixed budget this is what finds the last few percent: GEMM 4096^3 (the recorded H200
//    sweep, 58 evaluations, 40 seeds) within 3% of the optimum at 30 seeds instead of 15, matching
//    at 39 instead of 40; FGCS scores unchanged within noise (the scored range ends before it).
//  - Compile-ahead hints (Context::hint): the acquisition functions' runners-up, the predicted
//    local steps (the same walk on a copy of the generator), the neighbours of the best. They
//    never change the search.
//  - maxiter: iterations after the initial sample (default: until the budget ends).
// Cost per evaluation: O(n^2 + pool*n) for n observations; beyond 1024 observations the model
// keeps the best and the most recent ones.
#include <algorithm>
#include <cmath>
#include <numeric>
#include <optional>
#include <string>

#include "common/error.h"
#include "search/bayes_gp.h"
#include "search/bayes_model.h"
#include "search/bayes_opt_parts.h"
#include "search/continuous.h"
#include "search/strategies.h"

namespace tune::search::strategy {
namespace {
constexpr std::size_t kPool = 32768;        // candidates scored per step in larger spaces
constexpr std::size_t kLocalEvery = 4;      // every 4th step after the initial sample is a local one
constexpr std::size_t kLocalFrom = 10;      // from the best this many configurations
constexpr double kEndgame = 0.35;           // the share of the budget spent on local steps at its end
constexpr std::size_t kAheadFromModel = 8;  // compile-ahead hints per acquisition function per step

// The local step: a random unvisited Hamming neighbour of the best configuration that has one
// (of the kLocalFrom best), whatever the model predicts there.
std::optional<std::size_t> local_step(Context& ctx, const bo::Model& model) {
  const auto ranked = model.ranked();
  for (std::size_t k = 0; k < std::min(ranked.size(), kLocalFrom); ++k) {
    const auto around = ctx.unvisited_neighbours(ranked[k], Neighbourhood::hamming);
    if (!around.empty()) return around[ctx.rng().below(around.size())];
  }
  return std::nullopt;
}

// What local_step will evaluate if it comes next, once `taken` has been evaluated, with `ranked`
// the best configurations then: the same walk on a copy of the generator, so nothing is drawn.
std::optional<std::size_t> predicted_local_step(Context& ctx, const std::vector<std::size_t>& ranked,
                                                std::size_t taken) {
  Rng probe = ctx.rng();
  for (std::size_t k = 0; k < std::min(ranked.size(), kLocalFrom); ++k) {
    auto around = ctx.unvisited_neighbours(ranked[k], Neighbourhood::hamming);
    std::erase(around, taken);
    if (!around.empty()) return around[probe.below(around.size())];
  }
  return std::nullopt;
}

// Both predictions of the local step after `taken`: with `taken` not the best, and the best.
void add_predicted_local_steps(Context& ctx, const bo::Model& model, std::size_t taken, std::vector<std::size_t>& out) {
  auto ranked = model.ranked();
  if (auto l = predicted_local_step(ctx, ranked, taken)) out.push_back(*l);
  ranked.insert(ranked.begin(), taken);
  if (auto l = predicted_local_step(ctx, ranked, taken)) out.push_back(*l);
}

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
  model.add_candidates(pool);
  const bool sampled_pool = space.size() > kPool;

  auto evaluate = [&](std::size_t c) {
    const double best_before = ctx.best_objective();
    const std::optional<double> r = ctx.evaluate(c);
    model.observe(c, r);
    if (sampled_pool && r && *r < best_before) {  // look around every new best
      model.add_candidates(ctx.unvisited_neighbours(c, Neighbourhood::hamming));
    }
    return r;
  };

  // Initial sample: every start, then the Latin hypercube in farthest-first order (any prefix of
  // it is spread out) until initial_sample_size, which is smaller when the budget is short.
  std::size_t sampled = 0;
  for (std::size_t c : ctx.starts())
    if (!ctx.visited(c)) evaluate(c), ++sampled;
  auto enough = [&] { return sampled >= initial_sample_size(ctx, s.popsize) && model.ok_count() >= 2; };
  if (s.lhs && sampled < s.popsize) {
    const auto design = latin_hypercube(space, s.popsize - sampled, rng);
    ctx.hint(design);  // compile-ahead: the initial sample is known in full
    for (std::size_t c : design) {
      if (enough()) break;
      if (!ctx.visited(c)) evaluate(c), ++sampled;
    }
  }
  while (!enough()) evaluate(ctx.random_unvisited()), ++sampled;

  Portfolio portfolio(s.method);
  for (std::size_t it = 0; it < s.maxiter; ++it) {
    // The endgame: the last kEndgame of the budget's evaluations are all local steps.
    auto endgame_at = [&](std::size_t evaluations) {
      return static_cast<double>(evaluations) >= (1 - kEndgame) * budget_evaluations(ctx);
    };
    auto local_at = [&](std::size_t iteration, std::size_t evaluations) {
      return endgame_at(evaluations) || iteration % kLocalEvery == kLocalEvery - 1;
    };
    if (local_at(it, ctx.evaluations()))
      if (const auto c = local_step(ctx, model)) {
        // Compile-ahead: c, the next local step's pick when one follows (whether or not c becomes
        // the best), and the candidates the model ranks best now (a model step after this one
        // most often picks among them).
        if (ctx.wants_hints()) {
          std::vector<std::size_t> ahead{*c};
          if (local_at(it + 1, ctx.evaluations() + 1)) add_predicted_local_steps(ctx, model, *c, ahead);
          const auto next = model.peek(kAheadFromModel);
          ahead.insert(ahead.end(), next.begin(), next.end());
          ctx.hint(ahead);
        }
        evaluate(*c);
        continue;
      }
    const Acquisition af = portfolio.next();
    std::vector<std::size_t> ahead;
    const bool hints = ctx.wants_hints();
    const auto pick = model.best_candidate(af, hints ? &ahead : nullptr, kAheadFromModel);
    const std::size_t c = pick ? *pick : ctx.random_unvisited();
    // Compile-ahead (a GPU run compiles these while it measures c): c; when a local step comes
    // next, its pick whether or not c becomes the best; the acquisition functions' runners-up (the
    // next steps often pick one of them); the neighbours of the best.
    if (hints) {
      std::vector<std::size_t> first{c};
      if (local_at(it + 1, ctx.evaluations() + 1)) add_predicted_local_steps(ctx, model, c, first);
      ahead.insert(ahead.begin(), first.begin(), first.end());
      if (const auto ranked = model.ranked(); !ranked.empty()) {
        const auto around = ctx.unvisited_neighbours(ranked.front(), Neighbourhood::hamming);
        ahead.insert(ahead.end(), around.begin(), around.end());
      }
      ctx.hint(ahead);
    }
    const std::optional<double> r = evaluate(c);
    portfolio.record(af, r ? *r : model.median_objective());  // a failure counts as the median
  }
}

}  // namespace tune::search::strategy

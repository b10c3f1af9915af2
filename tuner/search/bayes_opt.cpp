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
//    a fixed budget this is what finds the last few percent (docs/performance.md, "The default
//    strategy"); FGCS scores are unchanged by it (the scored range ends before it).
//  - Compile-ahead hints (Context::hint): the acquisition functions' runners-up, the predicted
//    local steps (the same walk on a copy of the generator), the neighbours of the best. They
//    never change the search by themselves.
//  - Asynchronous steps on a GPU (Context::ready): when the model's pick is still compiling, the
//    first ready one of the next kReadyInstead candidates (the acquisition functions' runners-up,
//    in turn) is measured instead, the pick left in the pool (most often taken a step or two
//    later); a local step whose draw still compiles takes the first ready configuration of the
//    neighbourhood it drew from, and the endgame's mirror step, while the mirror compiles, a ready
//    neighbour of the best (the mirror is drawn again at the next step). Why: a compile takes the
//    time of 10 to 50 measurements, so waiting for every pick would dominate a guided run; the best
//    found stays as close (tuner/search/async_test.cpp models it at 5 and 20 measurements per
//    compile). Replays are always ready: their searches are unchanged.
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
constexpr std::size_t kPool = 32768;         // candidates scored per step in larger spaces
constexpr std::size_t kLocalEvery = 4;       // every 4th step after the initial sample is a local one
constexpr std::size_t kLocalFrom = 10;       // from the best this many configurations
constexpr double kEndgame = 0.35;            // the share of the budget spent on local steps at its end
constexpr std::size_t kAheadFromModel = 8;   // compile-ahead hints per acquisition function per step
constexpr std::size_t kWalkAhead = 12;       // local steps predicted for compile-ahead in the endgame
constexpr std::size_t kReadyInstead = 64;    // runners-up a model step may take while its pick compiles
constexpr std::size_t kRunnersUpHinted = 8;  // of those, hinted for compile-ahead (fewer guesses compete for the pool)

// Where a local step from `c` may go: its unvisited Hamming neighbours and, with `mirrors` (the
// endgame), once its mirror (every x/y pair exchanged) has been evaluated, the mirror's too.
std::vector<std::size_t> around(const Context& ctx, std::size_t c, bool mirrors) {
  auto out = ctx.unvisited_neighbours(c, Neighbourhood::hamming);
  if (!mirrors) return out;
  if (const auto m = ctx.neighbours(c, Neighbourhood::mirror); !m.empty() && ctx.visited(m.front()))
    for (std::size_t n : ctx.unvisited_neighbours(m.front(), Neighbourhood::hamming))
      if (std::find(out.begin(), out.end(), n) == out.end()) out.push_back(n);
  return out;
}

// Where the local step draws from: with `mirrors` (the endgame) an unvisited mirror of the best
// configuration, taken first; else the first non-empty neighbourhood (around) of the kLocalFrom
// best configurations, whatever the model predicts there; nothing of `gone`. Mirrors only in the
// endgame: before it they cost the short budgets of the FGCS scoring (convolution_milo on A4000,
// A6000: 0.05 to 0.07 lower at 100 repeats), and in the endgame they find the optimum's transposed
// twin (GEMM).
struct LocalSource {
  std::optional<std::size_t> mirror;
  std::vector<std::size_t> neighbourhood;  // empty with a mirror, or when no neighbour is left
};

LocalSource local_source(const Context& ctx, const std::vector<std::size_t>& ranked, bool mirrors,
                         const std::vector<std::size_t>& gone = {}) {
  auto fresh = [&](std::vector<std::size_t> v) {
    std::erase_if(v, [&](std::size_t c) { return std::find(gone.begin(), gone.end(), c) != gone.end(); });
    return v;
  };
  if (mirrors && !ranked.empty())
    if (const auto m = fresh(ctx.unvisited_neighbours(ranked.front(), Neighbourhood::mirror)); !m.empty())
      return {m.front(), {}};
  for (std::size_t k = 0; k < std::min(ranked.size(), kLocalFrom); ++k)
    if (auto a = fresh(around(ctx, ranked[k], mirrors)); !a.empty()) return {std::nullopt, std::move(a)};
  return {};
}

// The local step's choice from `src`: the mirror, else a random configuration of the neighbourhood.
std::optional<std::size_t> choose(const LocalSource& src, Rng& rng) {
  if (src.mirror) return src.mirror;
  if (src.neighbourhood.empty()) return std::nullopt;
  return src.neighbourhood[rng.below(src.neighbourhood.size())];
}

std::optional<std::size_t> local_choice(const Context& ctx, const std::vector<std::size_t>& ranked, bool mirrors,
                                        Rng& rng, const std::vector<std::size_t>& gone = {}) {
  return choose(local_source(ctx, ranked, mirrors, gone), rng);
}

// A local step's draw and where it was drawn from.
struct LocalDraw {
  std::size_t config;
  LocalSource source;
};

std::optional<LocalDraw> local_step(Context& ctx, const std::vector<std::size_t>& ranked, bool mirrors) {
  LocalSource src = local_source(ctx, ranked, mirrors);
  const auto c = choose(src, ctx.rng());
  if (!c) return std::nullopt;
  return LocalDraw{*c, std::move(src)};
}

// An asynchronous local step (Context::ready): while the draw still compiles, a ready configuration
// of the neighbourhood it was drawn from, in its order; while the endgame's mirror step compiles, a
// ready neighbour of the best (its around(); the mirror is drawn again at the next step); the draw
// itself when none is ready.
std::size_t ready_local(Context& ctx, const std::vector<std::size_t>& ranked, const LocalDraw& d, bool mirrors) {
  if (!ctx.wants_hints() || ctx.ready(d.config)) return d.config;
  const auto ready_in = [&](const std::vector<std::size_t>& from) {
    const auto it = std::find_if(from.begin(), from.end(), [&](std::size_t n) { return ctx.ready(n); });
    return it == from.end() ? d.config : *it;
  };
  return d.source.mirror ? ready_in(around(ctx, ranked.front(), mirrors)) : ready_in(d.source.neighbourhood);
}

// What local_step will evaluate next, and after it, once `taken` has been evaluated, with `ranked`
// the best configurations then and none of the steps a new best: the same choice on a copy of the
// generator, so nothing is drawn; up to `n` steps.
std::vector<std::size_t> predicted_local_walk(Context& ctx, const std::vector<std::size_t>& ranked, std::size_t taken,
                                              std::size_t n, bool mirrors) {
  std::vector<std::size_t> walk, gone{taken};
  Rng probe = ctx.rng();
  while (walk.size() < n) {
    const auto next = local_choice(ctx, ranked, mirrors, probe, gone);
    if (!next) break;
    walk.push_back(*next);
    gone.push_back(*next);
  }
  return walk;
}

// The predicted local steps after `taken` (predicted_local_walk, `n` steps), with `taken` not the
// best and the best: both first steps, then the rest of each walk.
void add_predicted_local_steps(Context& ctx, const bo::Model& model, std::size_t taken, std::size_t n, bool mirrors,
                               std::vector<std::size_t>& out) {
  auto ranked = model.ranked();
  const auto worse = predicted_local_walk(ctx, ranked, taken, n, mirrors);
  ranked.insert(ranked.begin(), taken);
  const auto better = predicted_local_walk(ctx, ranked, taken, n, mirrors);
  for (std::size_t i = 0; i < n; ++i)
    for (const auto* w : {&worse, &better})
      if (i < w->size() && std::find(out.begin(), out.end(), (*w)[i]) == out.end()) out.push_back((*w)[i]);
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
    // Local steps to predict for compile-ahead: in the endgame every step is one, so the walk
    // ahead (a compile takes many measurements' time); before it, the next one.
    auto walk_ahead = [&] { return endgame_at(ctx.evaluations() + 1) ? kWalkAhead : std::size_t{1}; };
    if (local_at(it, ctx.evaluations()))
      if (const auto ranked = model.ranked();
          const auto drawn = local_step(ctx, ranked, endgame_at(ctx.evaluations()))) {
        const auto c = std::optional(ready_local(ctx, ranked, *drawn, endgame_at(ctx.evaluations())));
        // Compile-ahead: c (and the draw, when c is a ready stand-in), the local steps that follow
        // (whether or not c becomes the best); in the endgame every configuration the next local
        // step may draw, before it the candidates the model ranks best now (a model step after
        // this one most often picks among them).
        if (ctx.wants_hints()) {
          std::vector<std::size_t> ahead{*c};
          if (drawn->config != *c) ahead.push_back(drawn->config);
          const bool endgame = endgame_at(ctx.evaluations() + 1);
          if (local_at(it + 1, ctx.evaluations() + 1))
            add_predicted_local_steps(ctx, model, *c, walk_ahead(), endgame, ahead);
          const auto next = endgame ? around(ctx, ranked.front(), true) : model.peek(kAheadFromModel);
          ahead.insert(ahead.end(), next.begin(), next.end());
          ctx.hint(ahead);
        }
        evaluate(*c);
        continue;
      }
    const Acquisition af = portfolio.next();
    std::vector<std::size_t> ahead;
    const bool hints = ctx.wants_hints();
    const auto pick = model.best_candidate(af, hints ? &ahead : nullptr, hints ? kReadyInstead : 0);
    std::size_t c = pick ? *pick : ctx.random_unvisited();
    if (hints && pick && !ctx.ready(c))  // asynchronous: a ready runner-up while the pick compiles
      for (std::size_t i = 0; i < ahead.size(); ++i)
        if (!ctx.visited(ahead[i]) && ctx.ready(ahead[i])) {
          c = ahead[i];
          break;
        }
    if (ahead.size() > kRunnersUpHinted) ahead.resize(kRunnersUpHinted);
    // Compile-ahead (a GPU run compiles these while it measures c): c and the model's pick; when a
    // local step comes next, its pick whether or not c becomes the best; the acquisition functions'
    // runners-up (the next steps often pick one of them); the neighbours of the best.
    if (hints) {
      std::vector<std::size_t> first{c};
      if (pick && *pick != c) first.push_back(*pick);
      const bool endgame = endgame_at(ctx.evaluations() + 1);
      if (local_at(it + 1, ctx.evaluations() + 1))
        add_predicted_local_steps(ctx, model, c, walk_ahead(), endgame, first);
      ahead.insert(ahead.begin(), first.begin(), first.end());
      if (const auto ranked = model.ranked(); !ranked.empty()) {
        const auto next = around(ctx, ranked.front(), endgame);
        ahead.insert(ahead.end(), next.begin(), next.end());
      }
      ctx.hint(ahead);
    }
    const std::optional<double> r = evaluate(c);
    portfolio.record(af, r ? *r : model.median_objective());  // a failure counts as the median
  }
}

}  // namespace tune::search::strategy

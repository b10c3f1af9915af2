// The firefly algorithm after Kernel Tuner's strategies/firefly_algorithm.py: `popsize` fireflies
// started on valid configurations; in each of `maxiter` rounds every firefly moves towards every
// brighter one (lower objective):
//   x += B0*exp(-gamma*|x_j - x|^2) * (x_j - x) + alpha*(uniform(-0.5, 0.5) per coordinate)
// and is evaluated after every move; the swarm is sorted by brightness after each round.
// Positions use Kernel Tuner's scaling (every value-index step equally long, the longest parameter
// spanning [0, 1]); a firefly is evaluated at the nearest valid configuration, and one that lands
// on a configuration already evaluated jumps to an unvisited one nearby (fresh_near).
#include <algorithm>
#include <cmath>

#include "search/continuous.h"
#include "search/strategies.h"

namespace tune::search::strategy {

void firefly_algorithm(Context& ctx) {
  const std::size_t popsize = count_option(ctx, "popsize", 20, 1);
  const std::size_t maxiter = count_option(ctx, "maxiter", 100, 0);
  const double b0 = real_option(ctx, "B0", 1.0, 0, 1e3);
  const double gamma = real_option(ctx, "gamma", 1.0, 0, 1e6);
  const double alpha = real_option(ctx, "alpha", 0.2, 0, 1e3);

  const Continuous box(ctx.space(), Scale::step);
  Rng& rng = ctx.rng();

  struct Firefly {
    std::vector<double> x;
    double score = Context::kFailed;
  };
  std::vector<Firefly> swarm;
  auto evaluate = [&](Firefly& f) { f.score = evaluate_fresh(ctx, box, f.x); };
  for (std::size_t c : initial_population(ctx, popsize)) swarm.push_back({box.position(c), Context::kFailed});
  for (auto& f : swarm) evaluate(f);
  if (box.active().empty()) return;

  for (std::size_t it = 0; it < maxiter; ++it) {
    for (auto& fi : swarm) {
      for (const auto& fj : swarm) {
        if (!(fj.score < fi.score)) continue;
        double d2 = 0;
        for (std::size_t d : box.active()) d2 += (fj.x[d] - fi.x[d]) * (fj.x[d] - fi.x[d]);
        const double beta = b0 * std::exp(-gamma * d2);
        for (std::size_t d : box.active()) fi.x[d] += beta * (fj.x[d] - fi.x[d]) + alpha * (rng.uniform() - 0.5);
        box.clamp(fi.x);
        evaluate(fi);
      }
    }
    std::stable_sort(swarm.begin(), swarm.end(), [](const Firefly& a, const Firefly& b) { return a.score < b.score; });
  }
}

}  // namespace tune::search::strategy

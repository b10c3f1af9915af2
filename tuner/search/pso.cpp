// Particle swarm optimisation after Kernel Tuner's strategies/pso.py: `popsize` particles started
// on valid configurations with velocities uniform in (-1, 1), `maxiter` rounds of
//   v = w*v + c1*r1*(personal best - x) + c2*r2*(swarm best - x),  x = clamp(x + v)
// (r1, r2 uniform per particle and round, as Kernel Tuner draws them). Positions live in the unit
// box over the value indices of the parameters with more than one value; a particle is evaluated at
// the nearest valid configuration, and one that lands on a configuration already evaluated jumps
// to an unvisited one nearby (fresh_near), so a swarm that has converged searches around its best
// instead of re-reading known results.
#include <algorithm>

#include "search/continuous.h"
#include "search/strategies.h"

namespace tune::search::strategy {

void pso(Context& ctx) {
  const std::size_t popsize = count_option(ctx, "popsize", 20, 1);
  const std::size_t maxiter = count_option(ctx, "maxiter", 100, 0);
  const double w = real_option(ctx, "w", 0.5, 0, 10);
  const double c1 = real_option(ctx, "c1", 2.0, 0, 10);
  const double c2 = real_option(ctx, "c2", 1.0, 0, 10);

  const Continuous box(ctx.space(), Scale::unit);
  Rng& rng = ctx.rng();

  struct Particle {
    std::vector<double> x, v, best_x;
    double best = Context::kFailed;
  };
  std::vector<Particle> swarm;
  std::vector<double> global_x;
  double global = Context::kFailed;
  auto evaluate = [&](Particle& p) {
    const double e = evaluate_fresh(ctx, box, p.x);
    if (e < p.best || p.best_x.empty()) p.best = e, p.best_x = p.x;
    if (e <= global || global_x.empty()) global = e, global_x = p.x;
  };

  for (std::size_t c : initial_population(ctx, popsize)) {
    Particle p;
    p.x = box.position(c);
    p.v.assign(box.dims(), 0.0);
    for (std::size_t d : box.active()) p.v[d] = (2 * rng.uniform() - 1) * box.upper(d);
    swarm.push_back(std::move(p));
  }
  // The first particles are the starts: evaluate them as they are (fresh_near only moves visited ones).
  for (auto& p : swarm) evaluate(p);
  if (box.active().empty()) return;

  for (std::size_t it = 0; it < maxiter; ++it) {
    for (auto& p : swarm) {
      const double r1 = rng.uniform(), r2 = rng.uniform();
      for (std::size_t d : box.active()) {
        p.v[d] = w * p.v[d] + c1 * r1 * (p.best_x[d] - p.x[d]) + c2 * r2 * (global_x[d] - p.x[d]);
        p.x[d] += p.v[d];
      }
      box.clamp(p.x);
      evaluate(p);
    }
  }
}

}  // namespace tune::search::strategy

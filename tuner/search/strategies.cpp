#include "search/strategies.h"

#include <cmath>

namespace tune::search {

const std::vector<Strategy>& strategies() {
  using namespace strategy;
  static const std::vector<Strategy> all{
      {"brute_force", {}, brute_force, "every configuration in declaration order"},
      {"random_sample", {"fraction"}, random_sample, "uniform sampling without replacement"},
      {"simulated_annealing",
       {"T", "T_min", "alpha", "maxiter"},
       simulated_annealing,
       "annealing over Hamming neighbours"},
      {"genetic_algorithm",
       {"popsize", "maxiter", "method", "mutation_chance"},
       genetic_algorithm,
       "crossover and mutation of a population"},
      {"diff_evo", {"popsize", "maxiter", "method"}, diff_evo, "differential evolution"},
      {"pso", {"popsize", "maxiter", "w", "c1", "c2"}, pso, "particle swarm"},
      {"greedy_ils",
       {"neighbor", "restart", "no_improvement", "random_walk"},
       greedy_ils,
       "greedy iterated local search"},
      {"greedy_mls", {"neighbor", "restart", "order", "randomize"}, greedy_mls, "greedy multi-start local search"},
      {"firefly_algorithm", {"popsize", "maxiter", "B0", "gamma", "alpha"}, firefly_algorithm, "firefly algorithm"},
      {"dual_annealing", {"method", "maxiter"}, dual_annealing, "global annealing with local search"},
      {"bayes_opt",
       {"covariancekernel", "covariancelengthscale", "method", "samplingmethod", "popsize", "maxiter"},
       bayes_opt,
       "Gaussian-process Bayesian optimisation"},
  };
  return all;
}

namespace strategy {

void brute_force(Context& ctx) {
  for (std::size_t c = 0; c < ctx.size(); ++c) ctx.evaluate(c);
}

void random_sample(Context& ctx) {
  // Kernel Tuner's `fraction`: the share of the space to sample (default: all of it, the budget decides).
  const double fraction = ctx.option("fraction", 1.0);
  const auto n = static_cast<std::size_t>(std::llround(fraction * static_cast<double>(ctx.size())));
  for (std::size_t i = 0; i < n; ++i) ctx.evaluate(ctx.random_unvisited());
}

}  // namespace strategy
}  // namespace tune::search

#include "search/strategies.h"

#include <algorithm>
#include <cmath>

namespace tune::search {

const std::vector<Strategy>& strategies() {
  using namespace strategy;
  static const std::vector<Strategy> all{
      {"brute_force", {}, brute_force, "every configuration in declaration order", true},
      {"random_sample", {"fraction"}, random_sample, "uniform sampling without replacement", true},
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

// Batches (Context::batch_size() > 1): the next configurations in declaration order.
void brute_force(Context& ctx) {
  const std::size_t k = ctx.batch_size();
  for (std::size_t c = 0; c < ctx.size(); c += k) {
    std::vector<std::size_t> batch;
    for (std::size_t i = c; i < std::min(ctx.size(), c + k); ++i) batch.push_back(i);
    ctx.evaluate_batch(batch);
  }
}

// Batches: distinct unvisited configurations drawn uniformly (the first draw is the one a batch of
// one makes).
void random_sample(Context& ctx) {
  // Kernel Tuner's `fraction`: the share of the space to sample (default: all of it, the budget decides).
  const double fraction = ctx.option("fraction", 1.0);
  const auto n = static_cast<std::size_t>(std::llround(fraction * static_cast<double>(ctx.size())));
  const std::size_t k = ctx.batch_size();
  for (std::size_t i = 0; i < n;) {
    std::vector<std::size_t> batch;
    const std::size_t want = std::min(k, n - i);
    for (std::size_t tries = 0; batch.size() < want && tries < 64 * want; ++tries) {
      const std::size_t c = ctx.random_unvisited();
      if (std::find(batch.begin(), batch.end(), c) == batch.end()) batch.push_back(c);
    }
    ctx.evaluate_batch(batch);
    i += batch.size();
  }
}

}  // namespace strategy
}  // namespace tune::search

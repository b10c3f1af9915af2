// Budgets of a few evaluations (issue: search that wins on caches nobody tuned to). On
// convolution_milo/W6600 the methodology's budget allows 2 to 8 evaluations. There, every
// strategy's first evaluations must be at least as good as random sampling in expectation: the
// mean rank (0 = optimum) of the best of the first k evaluations over 400 seeds is compared with
// the exact expectation for k uniform draws without replacement, (N + 1) / (k + 1) - 1, within the
// sampling error of 400 runs. (Before, the default seed was fixed at 1: repeated runs were one
// draw repeated, and every single-trajectory strategy made the same first draws, so one unlucky
// sequence decided all of them; tune run now draws a fresh seed, cli_test checks that.)
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "search/replay_fixture.h"

namespace tune::search {
namespace {

using testing::Problem;

const Problem& w6600() {
  static const Problem p = testing::load("convolution_milo", "W6600");
  return p;
}

class SmallBudget : public ::testing::TestWithParam<const char*> {};

TEST_P(SmallBudget, FirstEvaluationsAreAtLeastAsGoodAsRandomSampling) {
  const Problem& p = w6600();
  std::vector<double> sorted;
  for (const auto& o : p.objective)
    if (o) sorted.push_back(*o);
  std::sort(sorted.begin(), sorted.end());
  const double n = static_cast<double>(sorted.size());
  constexpr int kSeeds = 400;
  for (std::size_t k : {1u, 2u, 4u, 8u}) {
    double sum = 0;
    for (int seed = 1; seed <= kSeeds; ++seed) {
      const auto o = testing::replay(GetParam(), p, Budget{k, std::nullopt}, static_cast<std::uint64_t>(seed));
      sum += static_cast<double>(std::lower_bound(sorted.begin(), sorted.end(), o.best) - sorted.begin());
    }
    const double mean = sum / kSeeds, expected = (n + 1) / (static_cast<double>(k) + 1) - 1;
    // The rank of the best of k uniform draws has sd about expected * sqrt(k / (k + 2)); allow 3
    // standard errors of the mean over kSeeds runs.
    const double allowed = expected * (1 + 3 * std::sqrt(static_cast<double>(k) / (k + 2.0)) / std::sqrt(kSeeds));
    std::printf("%s, %zu evaluations: mean rank %.0f, random sampling %.0f (of %.0f)\n", GetParam(), k, mean, expected,
                n);
    EXPECT_LE(mean, allowed) << GetParam() << " after " << k << " evaluations";
  }
}

INSTANTIATE_TEST_SUITE_P(Strategies, SmallBudget,
                         ::testing::Values("bayes_opt", "greedy_ils", "greedy_mls", "simulated_annealing",
                                           "genetic_algorithm", "random_sample", "pso", "diff_evo", "firefly_algorithm",
                                           "dual_annealing"));

}  // namespace
}  // namespace tune::search

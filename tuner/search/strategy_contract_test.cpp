// What every strategy promises, checked on real measured spaces (the benchmark_hub convolution and
// dedispersion caches, A100): the fevals budget spent exactly on distinct valid configurations, the
// time limit, determinism given the seed, starts evaluated first, and better results than
// random_sample with the same budget. Strategy-specific behaviour: local_test.cpp, global_test.cpp.
#include <gtest/gtest.h>

#include <set>

#include "search/replay_fixture.h"

using namespace tune;
using namespace tune::search;
using namespace tune::search::testing;

namespace {

class EveryStrategy : public ::testing::TestWithParam<std::string> {};

INSTANTIATE_TEST_SUITE_P(Search, EveryStrategy,
                         ::testing::Values("simulated_annealing", "genetic_algorithm", "greedy_ils", "greedy_mls",
                                           "diff_evo", "pso", "firefly_algorithm", "dual_annealing", "bayes_opt"));

}  // namespace

TEST_P(EveryStrategy, SpendsExactlyTheEvaluationBudgetOnDistinctValidConfigurations) {
  for (const Problem* p : {&convolution(), &dedispersion()}) {
    const auto o = replay(GetParam(), *p, Budget{137, std::nullopt}, 5);
    EXPECT_EQ(o.evaluations, 137u);
    ASSERT_EQ(o.visits.size(), 137u);
    EXPECT_EQ(std::set<std::size_t>(o.visits.begin(), o.visits.end()).size(), 137u);
    for (std::size_t c : o.visits) {
      ASSERT_LT(c, p->space.size());
      EXPECT_TRUE(p->space.satisfies(p->space.config_values(c))) << p->space.params_json(c);
    }
  }
}

TEST_P(EveryStrategy, StopsAtTheFirstEvaluationThatReachesTheTimeLimit) {
  const Problem& p = convolution();
  const double limit = 120.0;  // simulated seconds: some 40 evaluations of this space (2.9 s each)
  const auto o = replay(GetParam(), p, Budget{std::nullopt, limit}, 9);
  ASSERT_GT(o.visits.size(), 10u);
  for (double t : o.began_s) EXPECT_LT(t, limit);
  EXPECT_GE(o.elapsed_s, limit);
  EXPECT_LT(o.elapsed_s - p.cost_s[o.visits.back()], limit);
}

TEST_P(EveryStrategy, IsDeterministicGivenTheSeed) {
  const Problem& p = dedispersion();
  const auto a = replay(GetParam(), p, Budget{150, std::nullopt}, 21);
  const auto b = replay(GetParam(), p, Budget{150, std::nullopt}, 21);
  const auto c = replay(GetParam(), p, Budget{150, std::nullopt}, 22);
  EXPECT_EQ(a.visits, b.visits);
  EXPECT_NE(a.visits, c.visits);
}

TEST_P(EveryStrategy, EvaluatesTheGivenStartsFirst) {
  const Problem& p = convolution();
  const std::vector<std::size_t> starts{17, 2500, 4000};
  const auto o = replay(GetParam(), p, Budget{40, std::nullopt}, 3, {}, starts);
  ASSERT_GE(o.visits.size(), 3u);
  EXPECT_EQ(std::vector<std::size_t>(o.visits.begin(), o.visits.begin() + 3), starts);
}

TEST_P(EveryStrategy, FindsBetterConfigurationsThanRandomSampling) {
  const int seeds = GetParam() == "bayes_opt" ? 4 : 10;  // bayes_opt's model costs ~1 ms per evaluation
  for (const Problem* p : {&convolution(), &dedispersion()}) {
    const double strategy = mean_best(GetParam(), *p, 300, seeds, 500);
    const double random = mean_best("random_sample", *p, 300, 30, 500);
    EXPECT_LT(strategy, random) << "optimum " << p->optimum;
    EXPECT_GE(strategy, p->optimum);
  }
}

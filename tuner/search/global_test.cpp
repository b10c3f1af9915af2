// diff_evo, pso, firefly_algorithm, dual_annealing and bayes_opt on real measured spaces: the
// benchmark_hub convolution and dedispersion caches (A100), replayed with Kernel Tuner's simulated
// clock: what only these five do (ending by maxiter, their options, bayes_opt's speed and initial
// sample); what every strategy promises is in strategy_contract_test.cpp.
#include <gtest/gtest.h>

#include <cstdio>
#include <ctime>
#include <filesystem>
#include <limits>
#include <map>
#include <set>

#include "common/error.h"
#include "interop/interop.h"
#include "interop/recorded.h"
#include "search/bayes_opt_parts.h"
#include "search/continuous.h"
#include "search/replay_fixture.h"
#include "search/search.h"
#include "spec/spec.h"

using namespace tune;
using namespace tune::search;
namespace fs = std::filesystem;

namespace {

using tune::search::testing::convolution;
using tune::search::testing::dedispersion;
using tune::search::testing::problem;
using tune::search::testing::Problem;
using tune::search::testing::replay;

class Global : public ::testing::TestWithParam<std::string> {};

INSTANTIATE_TEST_SUITE_P(Strategies, Global,
                         ::testing::Values("diff_evo", "pso", "firefly_algorithm", "dual_annealing", "bayes_opt"));

}  // namespace

TEST_P(Global, RunsUntilTheSpaceIsExhaustedOrItsIterationsEnd) {
  // Without a budget a strategy ends by itself: every configuration evaluated (Stop), or its own
  // maxiter spent. A tiny maxiter must end it early, after its initial population.
  const Problem& p = convolution();
  const auto o = replay(GetParam(), p, Budget{}, 4, {{"maxiter", "2"}});
  EXPECT_GT(o.evaluations, 0u);
  EXPECT_LT(o.evaluations, p.space.size());
  EXPECT_EQ(std::set<std::size_t>(o.visits.begin(), o.visits.end()).size(), o.visits.size());
}

TEST(GlobalOptions, AreParsedAndBadValuesNameTheOption) {
  const Problem& p = convolution();
  auto throws_naming = [&](const std::string& strategy, StrategyOptions o, const std::string& key) {
    try {
      replay(strategy, p, Budget{30, std::nullopt}, 1, std::move(o));
      ADD_FAILURE() << strategy << " accepted a bad " << key;
    } catch (const InputError& e) {
      EXPECT_NE(std::string(e.what()).find(key), std::string::npos) << e.what();
    }
  };
  throws_naming("diff_evo", {{"method", "best3bin"}}, "method");
  throws_naming("diff_evo", {{"popsize", "0"}}, "popsize");
  throws_naming("diff_evo", {{"maxiter", "many"}}, "maxiter");
  throws_naming("pso", {{"w", "-0.5"}}, "w");
  throws_naming("pso", {{"c1", "nan"}}, "c1");
  throws_naming("firefly_algorithm", {{"gamma", "x"}}, "gamma");
  throws_naming("firefly_algorithm", {{"alpha", "-1"}}, "alpha");
  throws_naming("dual_annealing", {{"method", "Newton-CG"}}, "method");
  throws_naming("bayes_opt", {{"covariancekernel", "rbf2"}}, "covariancekernel");
  throws_naming("bayes_opt", {{"covariancelengthscale", "0"}}, "covariancelengthscale");
  throws_naming("bayes_opt", {{"method", "ucb"}}, "method");
  throws_naming("bayes_opt", {{"samplingmethod", "sobol"}}, "samplingmethod");
  throws_naming("bayes_opt", {{"popsize", "-3"}}, "popsize");

  for (const char* m : {"best1bin", "best1exp", "rand1bin", "rand1exp", "randtobest1bin", "randtobest1exp",
                        "currenttobest1bin", "currenttobest1exp", "best2bin", "best2exp", "rand2bin", "rand2exp"})
    EXPECT_EQ(replay("diff_evo", p, Budget{60, std::nullopt}, 2, {{"method", m}}).evaluations, 60u) << m;
  for (const char* m : {"COBYLA", "Powell", "Nelder-Mead", "L-BFGS-B", "compass", "hamming", "none"})
    EXPECT_EQ(replay("dual_annealing", p, Budget{60, std::nullopt}, 2, {{"method", m}}).evaluations, 60u) << m;
  for (const char* m :
       {"ei", "poi", "lcb", "multi", "multi-fast", "multi-ultrafast", "multi-advanced", "advanced_multi"})
    EXPECT_EQ(replay("bayes_opt", p, Budget{40, std::nullopt}, 2, {{"method", m}}).evaluations, 40u) << m;
  EXPECT_EQ(replay("bayes_opt", p, Budget{40, std::nullopt}, 2,
                   {{"covariancekernel", "matern52"},
                    {"covariancelengthscale", "0.5"},
                    {"samplingmethod", "random"},
                    {"popsize", "5"}})
                .evaluations,
            40u);
  EXPECT_EQ(replay("pso", p, Budget{60, std::nullopt}, 2, {{"w", "0.9"}, {"c1", "1"}, {"c2", "2"}, {"popsize", "7"}})
                .evaluations,
            60u);
  EXPECT_EQ(replay("firefly_algorithm", p, Budget{60, std::nullopt}, 2, {{"B0", "0.5"}, {"gamma", "3"}}).evaluations,
            60u);
}

TEST(GlobalBayesOpt, ThousandEvaluationsOfTheDedispersionSpaceTakeSeconds) {
  const Problem& p = dedispersion();
  const std::clock_t cpu = std::clock();
  const auto o = replay("bayes_opt", p, Budget{1000, std::nullopt}, 3);
  const double seconds = static_cast<double>(std::clock() - cpu) / CLOCKS_PER_SEC;
  EXPECT_EQ(o.evaluations, 1000u);
  EXPECT_LT(seconds, 20.0);
  std::printf("bayes_opt: 1000 evaluations of %zu configurations in %.2f s CPU (%.2f ms per evaluation)\n",
              p.space.size(), seconds, seconds);
}

TEST(GlobalBayesOpt, TheInitialSampleIsASpreadOutLatinHypercubeSizedByTheBudget) {
  const Problem& p = dedispersion();
  Rng rng(4);
  const auto lhs = bo::latin_hypercube(p.space, 20, rng);
  ASSERT_GE(lhs.size(), 15u);  // snapping may merge a few points
  EXPECT_EQ(std::set<std::size_t>(lhs.begin(), lhs.end()).size(), lhs.size());
  // Farthest-first: each point's distance to the points before it never grows.
  const Continuous box(p.space, Scale::unit);
  double previous = std::numeric_limits<double>::infinity();
  for (std::size_t i = 1; i < lhs.size(); ++i) {
    double gap = std::numeric_limits<double>::infinity();
    for (std::size_t j = 0; j < i; ++j) gap = std::min(gap, box.distance2(box.position(lhs[i]), lhs[j]));
    EXPECT_LE(gap, previous + 1e-12) << i;
    previous = gap;
  }
  // block_size_y (29 values) is covered across its range, not bunched.
  std::set<int> thirds;
  for (std::size_t c : lhs) thirds.insert(p.space.indices(c)[1] * 3 / 29);
  EXPECT_EQ(thirds.size(), 3u);

  TableEvaluator ev(p.objective, p.cost_s);
  EXPECT_EQ(bo::initial_sample_size(Context(p.space, ev, Budget{1000, std::nullopt}, 1), 20), 20u);
  EXPECT_EQ(bo::initial_sample_size(Context(p.space, ev, Budget{300, std::nullopt}, 1), 20), 15u);
  EXPECT_EQ(bo::initial_sample_size(Context(p.space, ev, Budget{40, std::nullopt}, 1), 20), bo::kMinInitial);
  EXPECT_EQ(bo::initial_sample_size(Context(p.space, ev, Budget{}, 1), 20), 20u);
  EXPECT_EQ(bo::initial_sample_size(Context(p.space, ev, Budget{}, 1), 3), 3u);
  // A time limit counts in evaluations of the mean cost so far: 60 evaluations' worth here.
  Context timed(p.space, ev, Budget{std::nullopt, 60 * p.cost_s[7]}, 1);
  timed.evaluate(7);
  EXPECT_EQ(bo::initial_sample_size(timed, 20), bo::kMinInitial);
  // With a 40-evaluation budget the model takes over after kMinInitial samples: the first
  // evaluations after them are the model's, so the run is not the first 40 of a longer one.
  const auto short_run = replay("bayes_opt", p, Budget{40, std::nullopt}, 8);
  const auto long_run = replay("bayes_opt", p, Budget{400, std::nullopt}, 8);
  ASSERT_EQ(short_run.visits.size(), 40u);
  EXPECT_NE(short_run.visits, std::vector<std::size_t>(long_run.visits.begin(), long_run.visits.begin() + 40));
  EXPECT_EQ(std::vector<std::size_t>(short_run.visits.begin(), short_run.visits.begin() + bo::kMinInitial),
            std::vector<std::size_t>(long_run.visits.begin(), long_run.visits.begin() + bo::kMinInitial));
}

// The endgame's mirror steps (Neighbourhood::mirror): on the recorded GEMM 4096^3 sweeps the
// optimum (block 8 x 16, tile 16 x 8) has a transposed twin 4 to 6% slower, four parameters away,
// where a search that found the twin first used to end at one seed in three (28 of 40 on the H100
// sweep). With 58 evaluations (10% of the space) the default now ends within 3% of the optimum at
// 94 to 97 seeds of 100 on either GPU's sweep; at least 18 of these 20.
TEST(GlobalBayesOpt, TheEndgameFindsTheOptimumsTransposedTwinOnTheRecordedGemmSweeps) {
  const std::filesystem::path root(TUNE_SOURCE_DIR);
  for (const char* cache : {"results/recorded/gemm/4096x4096x4096.json.gz",          // H200
                            "results/recorded/h100/gemm/4096x4096x4096.json.gz"}) {  // H100
    const Problem p = tune::search::testing::load_file(root / "spaces/gemm.json", root / cache);
    int within = 0;
    for (std::uint64_t seed = 1; seed <= 20; ++seed) {
      const auto o = replay("bayes_opt", p, Budget{58, std::nullopt}, seed);
      EXPECT_EQ(o.evaluations, 58u);
      within += o.best <= 1.03 * p.optimum;
    }
    std::printf("%s: within 3%% of the optimum at %d of 20 seeds\n", cache, within);
    EXPECT_GE(within, 18) << cache;
  }
}

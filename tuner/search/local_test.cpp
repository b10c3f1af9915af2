// simulated_annealing, genetic_algorithm, greedy_ils and greedy_mls on real measured spaces: the
// benchmark_hub convolution and dedispersion caches (A100), replayed with Kernel Tuner's simulated
// clock: what only these four do (exhausting a space, the repaired climb, their options); what
// every strategy promises is in strategy_contract_test.cpp.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <set>

#include "common/error.h"
#include "interop/interop.h"
#include "interop/recorded.h"
#include "search/replay_fixture.h"
#include "search/search.h"
#include "spec/spec.h"

using namespace tune;
using namespace tune::search;
namespace fs = std::filesystem;

namespace {

using tune::search::testing::convolution;
using tune::search::testing::dedispersion;
using tune::search::testing::mean_best;
using tune::search::testing::Problem;
using tune::search::testing::replay;

class Local : public ::testing::TestWithParam<std::string> {};

INSTANTIATE_TEST_SUITE_P(Strategies, Local,
                         ::testing::Values("simulated_annealing", "genetic_algorithm", "greedy_ils", "greedy_mls"));

}  // namespace

TEST_P(Local, EndsWhenEveryConfigurationIsEvaluated) {
  // A space small enough to exhaust: Kernel Tuner's own vector_add test cache (15 configurations).
  const fs::path dir = tune::test_data::file("kernel_tuner/test");
  const auto space = space::Space::build(spec::load(dir / "test_cache_file_T1_input.json"));
  const auto cache = interop::read_cache(dir / "test_cache_file.json");
  const auto rec = interop::recorded_results(cache, space);
  std::vector<double> cost_s(rec.cost_ms.size());
  for (std::size_t c = 0; c < cost_s.size(); ++c) cost_s[c] = rec.cost_ms[c] / 1000;
  TableEvaluator ev(rec.objective, cost_s);
  Context ctx(space, ev, Budget{}, 4);
  EXPECT_EQ(run(GetParam(), ctx), space.size());
  EXPECT_EQ(ctx.best(), rec.best);

  // Nothing but failures: the search still moves on to new configurations until the end.
  TableEvaluator failing(std::vector<std::optional<double>>(space.size()), cost_s);
  Context none(space, failing, Budget{}, 4);
  EXPECT_EQ(run(GetParam(), none), space.size());
  const Problem& d = dedispersion();
  TableEvaluator failing_big(std::vector<std::optional<double>>(d.space.size()), d.cost_s);
  Context some(d.space, failing_big, Budget{300, std::nullopt}, 4);
  EXPECT_EQ(run(GetParam(), some), 300u);
}

TEST(LocalGreedy, ClimbsAcrossARestrictionWithARepairedStep) {
  // dedispersion's restriction "tile_size_y > 1 or tile_stride_y == 0": from tile_size_y = 2 with
  // tile_stride_y = 1, tile_size_y = 1 is reachable only with tile_stride_y = 0 as well. Make that
  // pair the only improvement (1 against 2 everywhere else, 3 for tile_stride_y = 0 alone): a
  // single-parameter climb from there is stuck; one that repairs the step reaches it at once.
  const Problem& d = dedispersion();
  const auto& names = d.space.names();
  const auto at = [&](const char* n) { return std::size_t(std::find(names.begin(), names.end(), n) - names.begin()); };
  const std::size_t ty = at("tile_size_y"), sy = at("tile_stride_y");
  std::vector<std::optional<double>> objective(d.space.size());
  std::optional<std::size_t> start;
  for (std::size_t c = 0; c < d.space.size(); ++c) {
    const long size = d.space.value(c, ty).as_int(), stride = d.space.value(c, sy).as_int();
    objective[c] = size == 1 && stride == 0 ? 1.0 : stride == 0 ? 3.0 : 2.0;
    if (!start && size == 2 && stride == 1) start = c;
  }
  ASSERT_TRUE(start);
  for (const char* strategy : {"greedy_mls", "greedy_ils"}) {
    TableEvaluator ev(objective, std::vector<double>(d.space.size(), 1.0));
    Context ctx(d.space, ev, Budget{40, std::nullopt}, 7, {}, {*start});
    run(strategy, ctx);
    EXPECT_EQ(ctx.best_objective(), 1.0) << strategy;
  }
}

TEST(LocalOptions, AreParsedAndBadValuesNameTheOption) {
  const Problem& p = convolution();
  auto throws_naming = [&](const std::string& strategy, StrategyOptions o, const std::string& key) {
    try {
      replay(strategy, p, Budget{20, std::nullopt}, 1, std::move(o));
      ADD_FAILURE() << strategy << " accepted a bad " << key;
    } catch (const InputError& e) {
      EXPECT_NE(std::string(e.what()).find(key), std::string::npos) << e.what();
    }
  };
  throws_naming("greedy_ils", {{"neighbor", "Manhattan"}}, "neighbor");
  throws_naming("greedy_mls", {{"restart", "maybe"}}, "restart");
  throws_naming("greedy_mls", {{"randomize", "2"}}, "randomize");
  throws_naming("greedy_mls", {{"order", "block_size_x,nonsense"}}, "order");
  throws_naming("greedy_mls", {{"order", "1,1"}}, "order");
  throws_naming("greedy_mls", {{"order", "0,1"}, {"randomize", "True"}}, "order");
  throws_naming("greedy_ils", {{"no_improvement", "ten"}}, "no_improvement");
  throws_naming("genetic_algorithm", {{"method", "three_point"}}, "method");
  throws_naming("genetic_algorithm", {{"popsize", "1"}}, "popsize");
  throws_naming("simulated_annealing", {{"alpha", "1.5"}}, "alpha");
  throws_naming("simulated_annealing", {{"T_min", "2"}}, "T_min");

  for (const StrategyOptions& o :
       {StrategyOptions{{"neighbor", "adjacent"}, {"restart", "False"}},
        StrategyOptions{{"neighbor", "Hamming"}, {"restart", "0"}, {"order", "[block_size_y, 0, tile_size_x]"}}}) {
    const auto r = replay("greedy_mls", p, Budget{60, std::nullopt}, 2, o);
    EXPECT_EQ(r.evaluations, 60u);
  }
  for (const char* method : {"single_point", "two_point", "uniform", "disruptive_uniform"})
    EXPECT_EQ(replay("genetic_algorithm", p, Budget{80, std::nullopt}, 2, {{"method", method}}).evaluations, 80u);
  EXPECT_EQ(replay("greedy_ils", p, Budget{80, std::nullopt}, 2, {{"neighbor", "adjacent"}, {"random_walk", "0.5"}})
                .evaluations,
            80u);
  EXPECT_EQ(replay("simulated_annealing", p, Budget{80, std::nullopt}, 2, {{"T", "0.5"}, {"maxiter", "3"}}).evaluations,
            80u);
}

#include "tuning/tuner.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <set>

#include "common/test_data.h"
#include "tuning/size_search.h"

namespace fs = std::filesystem;
using namespace tune;

TEST(StrategyFor, TheCommandThenTheSpecThenTheDefault) {
  const auto transpose = spec::load(fs::path(TUNE_SOURCE_DIR) / "spaces" / "transpose.json");
  const auto hub = spec::load(test_data::file("benchmark_hub/convolution_milo.json"));
  EXPECT_EQ(transpose.search, "brute_force");  // "Search": {"Name": "brute_force"}
  EXPECT_EQ(hub.search, "");                   // no Search key
  tuning::Options o;
  o.strategy = "";
  EXPECT_EQ(tuning::strategy_for(o, transpose), "brute_force");
  EXPECT_EQ(tuning::strategy_for(o, hub), "bayes_opt");  // the default (docs/performance.md: the protocol)
  o.strategy = "greedy_ils";
  EXPECT_EQ(tuning::strategy_for(o, transpose), "greedy_ils");
  auto odd = transpose;
  odd.search = "basinhopping";  // a Kernel Tuner strategy tune does not have
  o.strategy = "";
  EXPECT_EQ(tuning::strategy_for(o, odd), "bayes_opt");
}

// A size split over K ranks (tuning::Part::search): the shares of the budget differ by at most one
// and add up to it, and each share searches with a seed of its own (share 0 with the run's).
TEST(Share, TheSharesAddUpToTheBudgetAndSearchWithSeedsApart) {
  for (std::size_t total : {2u, 7u, 58u, 575u})
    for (std::size_t k : {2u, 3u, 8u}) {
      if (total < k) continue;
      std::size_t sum = 0, least = total, most = 0;
      for (std::size_t i = 0; i < k; ++i) {
        const std::size_t s = tuning::share_of(total, i, k);
        sum += s, least = std::min(least, s), most = std::max(most, s);
      }
      EXPECT_EQ(sum, total) << total << " over " << k;
      EXPECT_LE(most - least, 1u) << total << " over " << k;
      EXPECT_GE(least, 1u);
    }
  tuning::Options o;
  o.strategy = "bayes_opt";
  o.seed = 42;
  o.max_fevals = 58;
  EXPECT_EQ(*tuning::search_policy(o).budget.max_fevals, 58u);  // a whole run: the budget as given
  EXPECT_EQ(tuning::search_policy(o).seed, 42u);
  std::set<std::uint64_t> seeds;
  std::size_t budget = 0;
  for (std::size_t i = 0; i < 3; ++i) {
    o.share = {tuning::Part::search, i, 3};
    const auto p = tuning::search_policy(o);
    budget += *p.budget.max_fevals;
    seeds.insert(p.seed);
  }
  EXPECT_EQ(budget, 58u);
  EXPECT_EQ(seeds.size(), 3u);
  EXPECT_TRUE(seeds.contains(42u));
}

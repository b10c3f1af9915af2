#include "tuning/tuner.h"

#include <gtest/gtest.h>

#include <filesystem>

namespace fs = std::filesystem;
using namespace tune;

TEST(StrategyFor, TheCommandThenTheSpecThenTheDefault) {
  const auto transpose = spec::load(fs::path(TUNE_SOURCE_DIR) / "spaces" / "transpose.json");
  const auto hub =
      spec::load(fs::path(TUNE_SOURCE_DIR) / ".." / "shared" / "external" / "benchmark_hub" / "convolution_milo.json");
  EXPECT_EQ(transpose.search, "brute_force");  // "Search": {"Name": "brute_force"}
  EXPECT_EQ(hub.search, "");                   // no Search key
  tuning::Options o;
  o.strategy = "";
  EXPECT_EQ(tuning::strategy_for(o, transpose), "brute_force");
  EXPECT_EQ(tuning::strategy_for(o, hub), "bayes_opt");  // the default (BENCHMARKS.md: the protocol)
  o.strategy = "greedy_ils";
  EXPECT_EQ(tuning::strategy_for(o, transpose), "greedy_ils");
  auto odd = transpose;
  odd.search = "basinhopping";  // a Kernel Tuner strategy tune does not have
  o.strategy = "";
  EXPECT_EQ(tuning::strategy_for(o, odd), "bayes_opt");
}

#include "search/search.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <set>

#include "common/error.h"
#include "spec/spec.h"

using namespace tune::search;

TEST(Search, RngIsTheSameEverywhere) {
  Rng r(1);
  EXPECT_EQ(r.next(), 0x910a2dec89025cc1ULL);  // splitmix64's published first output for seed 1
  Rng s(3);
  for (int i = 0; i < 1000; ++i) EXPECT_LT(s.below(10), 10u);
  double lo = 1, hi = 0;
  for (int i = 0; i < 1000; ++i) {
    double u = s.uniform();
    lo = std::min(lo, u), hi = std::max(hi, u);
  }
  EXPECT_GE(lo, 0.0);
  EXPECT_LT(hi, 1.0);
  EXPECT_LT(lo, 0.01);
  EXPECT_GT(hi, 0.99);
}

TEST(Search, UnknownStrategyOrOptionIsAnError) {
  EXPECT_THROW(check_strategy("annealing"), tune::InputError);
  EXPECT_THROW(find_strategy("random_sample", {{"T", "1"}}), tune::InputError);
  EXPECT_NO_THROW(find_strategy("random_sample", {{"fraction", "0.5"}}));
  EXPECT_THROW(parse_options({"T"}), tune::InputError);
  EXPECT_THROW(parse_options({"=1"}), tune::InputError);
  EXPECT_EQ(parse_options({"T=0.5", "alpha=0.9"}).at("alpha"), "0.9");
}

namespace {
// A 2-parameter space x in 0..9, y in 0..9 with x + y <= 12 (79 valid configurations).
tune::space::Space small_space() {
  auto spec = tune::spec::parse(R"({"General": {"BenchmarkName": "t", "FormatVersion": 1},
    "ConfigurationSpace": {"TuningParameters": [
      {"Name": "x", "Type": "int", "Values": "[0,1,2,3,4,5,6,7,8,9]"},
      {"Name": "y", "Type": "int", "Values": "[0,1,2,3,4,5,6,7,8,9]"}],
     "Conditions": [{"Expression": "x + y <= 12", "Parameters": ["x", "y"]}]},
    "KernelSpecification": {"Language": "CUDA", "KernelName": "k", "KernelFile": "k.cu",
      "GlobalSize": {"X": "1"}, "LocalSize": {"X": "1"}}})",
                                "small.json");
  return tune::space::Space::build(spec);
}
}  // namespace

TEST(Context, CountsFirstVisitsOnlyAndEndsWithTheBudget) {
  auto space = small_space();
  ASSERT_EQ(space.size(), 79u);
  std::vector<std::optional<double>> obj(space.size());
  for (std::size_t c = 0; c < space.size(); ++c) obj[c] = 1.0 + static_cast<double>(c % 7);
  obj[3] = std::nullopt;
  TableEvaluator ev(obj, std::vector<double>(space.size(), 0.5));
  Context ctx(space, ev, Budget{10, std::nullopt}, 1);
  EXPECT_EQ(ctx.evaluate(3), std::nullopt);
  EXPECT_EQ(ctx.cost(3), Context::kFailed);
  EXPECT_EQ(ctx.evaluations(), 1u);
  EXPECT_DOUBLE_EQ(ev.elapsed_s(), 0.5);
  EXPECT_EQ(run("random_sample", ctx), 10u);
  EXPECT_DOUBLE_EQ(ev.elapsed_s(), 5.0);
  ASSERT_TRUE(ctx.best());
  EXPECT_DOUBLE_EQ(ctx.best_objective(), *obj[*ctx.best()]);

  TableEvaluator ev2(obj, std::vector<double>(space.size(), 0.5));
  Context timed(space, ev2, Budget{std::nullopt, 2.0}, 1);
  EXPECT_EQ(run("random_sample", timed), 4u);  // 4 x 0.5 s reaches the 2 s limit
  TableEvaluator ev3(obj, std::vector<double>(space.size(), 0.5));
  Context all(space, ev3, Budget{}, 1);
  EXPECT_EQ(run("brute_force", all), 79u);
}

TEST(Context, NeighboursAreValidAndDiffer) {
  auto space = small_space();
  TableEvaluator ev(std::vector<std::optional<double>>(space.size(), 1.0), std::vector<double>(space.size(), 0));
  Context ctx(space, ev, Budget{}, 1);
  const std::vector<tune::space::Index> at{8, 4};  // x=8, y=4: x+y=12
  const std::size_t c = *space.find(at);
  auto h = ctx.neighbours(c, Neighbourhood::hamming);
  // x in 0..8 with y = 4 (x = 9 is invalid), y in 0..4 with x = 8: 8 + 4 others
  EXPECT_EQ(h.size(), 12u);
  auto a = ctx.neighbours(c, Neighbourhood::adjacent);
  // (7..9) x (3..5) minus itself, minus the invalid (9,4), (9,5), (8,5)
  EXPECT_EQ(a.size(), 5u);
  for (auto n : a) {
    auto idx = space.indices(n);
    EXPECT_LE(std::abs(int(idx[0]) - 8), 1);
    EXPECT_LE(std::abs(int(idx[1]) - 4), 1);
    EXPECT_LE(int(idx[0]) + int(idx[1]), 12);
  }
}

TEST(Context, UnvisitedNeighboursLeaveTheVisitedOut) {
  auto space = small_space();
  TableEvaluator ev(std::vector<std::optional<double>>(space.size(), 1.0), std::vector<double>(space.size(), 0));
  Context ctx(space, ev, Budget{}, 1);
  const std::size_t c = *space.find(std::vector<tune::space::Index>{8, 4});
  auto all = ctx.neighbours(c, Neighbourhood::hamming);
  ctx.evaluate(all[0]);
  ctx.evaluate(all[5]);
  all.erase(all.begin() + 5);
  all.erase(all.begin());
  EXPECT_EQ(ctx.unvisited_neighbours(c, Neighbourhood::hamming), all);  // same order, 10 of 12
}

namespace {
// The configurations a strategy evaluates, in order, over small_space() with no budget.
std::vector<std::size_t> order_of(const std::string& strategy, std::uint64_t seed) {
  auto space = small_space();
  struct Order : Evaluator {
    std::vector<std::size_t> seen;
    std::optional<double> evaluate(std::size_t c) override {
      seen.push_back(c);
      return 1.0;
    }
    double elapsed_s() const override { return 0; }
  } ev;
  Context ctx(space, ev, Budget{}, seed);
  run(strategy, ctx);
  return ev.seen;
}
}  // namespace

TEST(Search, BruteForceIsDeclarationOrder) {
  auto o = order_of("brute_force", 42);
  ASSERT_EQ(o.size(), 79u);
  for (std::size_t i = 0; i < o.size(); ++i) EXPECT_EQ(o[i], i);
}

TEST(Search, RandomSampleIsASeededPermutation) {
  auto a = order_of("random_sample", 7), b = order_of("random_sample", 7);
  auto c = order_of("random_sample", 8);
  EXPECT_EQ(a, b);
  EXPECT_NE(a, c);
  auto sorted = a;
  std::sort(sorted.begin(), sorted.end());
  EXPECT_EQ(sorted, order_of("brute_force", 0));
  EXPECT_NE(a, sorted);
}

namespace {
// The configuration of `space` whose parameter i takes values[i], one of lists[i] (its Values).
std::size_t config_of(const tune::space::Space& space, const std::vector<std::vector<int>>& lists,
                      const std::vector<int>& values) {
  std::vector<tune::space::Index> idx;
  for (std::size_t i = 0; i < values.size(); ++i)
    idx.push_back(
        static_cast<tune::space::Index>(std::find(lists[i].begin(), lists[i].end(), values[i]) - lists[i].begin()));
  const auto c = space.find(idx);
  std::string shown;
  for (int v : values) shown += std::to_string(v) + " ";
  EXPECT_TRUE(c.has_value()) << "not a valid configuration: " << shown;
  return c.value_or(0);
}
}  // namespace

// Where the whole mirror breaks a condition through another parameter (matching: min_blocks 2 with
// 8 x 16 threads), its valid configurations one other parameter away stand for it, before the
// partial mirrors. On the GPU a guided matching run without this ended on block 16 x 8, tile
// 8 x 16, min_blocks 2, 8% off the optimum: block 8 x 16, tile 16 x 8, min_blocks 1.
TEST(Context, AnInvalidWholeMirrorIsStoodInForByItsValidNeighbours) {
  auto spec = tune::spec::parse(R"({"General": {"BenchmarkName": "t", "FormatVersion": 1},
    "ConfigurationSpace": {"TuningParameters": [
      {"Name": "block_size_x", "Type": "int", "Values": "[8, 16]"},
      {"Name": "block_size_y", "Type": "int", "Values": "[8, 16]"},
      {"Name": "tile_size_x", "Type": "int", "Values": "[8, 16]"},
      {"Name": "tile_size_y", "Type": "int", "Values": "[8, 16]"},
      {"Name": "min_blocks", "Type": "int", "Values": "[1, 2, 4]"}],
     "Conditions": [{"Expression": "min_blocks == 1 or block_size_x >= block_size_y",
                     "Parameters": ["min_blocks", "block_size_x", "block_size_y"]}]},
    "KernelSpecification": {"Language": "CUDA", "KernelName": "k", "KernelFile": "k.cu",
      "GlobalSize": {"X": "1"}, "LocalSize": {"X": "1"}}})",
                                "mirror_stand_in.json");
  auto space = tune::space::Space::build(spec);
  TableEvaluator ev(std::vector<std::optional<double>>(space.size(), 1.0), std::vector<double>(space.size(), 0.1));
  Context ctx(space, ev, Budget{}, 1);
  auto find = [&](int bx, int by, int tx, int ty, int m) {
    return config_of(space, {{8, 16}, {8, 16}, {8, 16}, {8, 16}, {1, 2, 4}}, {bx, by, tx, ty, m});
  };
  using V = std::vector<std::size_t>;
  // (8, 16, 16, 8, 2) breaks the condition: min_blocks 1 stands in (4 breaks it too); then the tiles
  // alone; the blocks alone break it as well
  EXPECT_EQ(ctx.neighbours(find(16, 8, 8, 16, 2), Neighbourhood::mirror),
            (V{find(8, 16, 16, 8, 1), find(16, 8, 16, 8, 2)}));
  // a valid whole mirror stands for itself
  EXPECT_EQ(ctx.neighbours(find(16, 8, 8, 16, 1), Neighbourhood::mirror),
            (V{find(8, 16, 16, 8, 1), find(16, 8, 16, 8, 1), find(8, 16, 8, 16, 1)}));
}

// Neighbourhood::mirror: the values of x/y parameter pairs exchanged, every non-empty subset of the
// pairs (all of them first), a pair left out where the values are equal or one is not among the
// other parameter's values; only valid configurations.
TEST(Context, MirrorNeighboursExchangeTheValuesOfXYPairs) {
  auto spec = tune::spec::parse(R"({"General": {"BenchmarkName": "t", "FormatVersion": 1},
    "ConfigurationSpace": {"TuningParameters": [
      {"Name": "block_size_x", "Type": "int", "Values": "[4, 8, 16]"},
      {"Name": "block_size_y", "Type": "int", "Values": "[4, 8, 16, 32]"},
      {"Name": "tile_size_x", "Type": "int", "Values": "[1, 2, 4]"},
      {"Name": "tile_size_y", "Type": "int", "Values": "[1, 2, 4]"},
      {"Name": "z", "Type": "int", "Values": "[0, 1]"}],
     "Conditions": [{"Expression": "block_size_x * tile_size_x != 64", "Parameters": ["block_size_x", "tile_size_x"]}]},
    "KernelSpecification": {"Language": "CUDA", "KernelName": "k", "KernelFile": "k.cu",
      "GlobalSize": {"X": "1"}, "LocalSize": {"X": "1"}}})",
                                "mirror.json");
  auto space = tune::space::Space::build(spec);
  TableEvaluator ev(std::vector<std::optional<double>>(space.size(), 1.0), std::vector<double>(space.size(), 0.1));
  Context ctx(space, ev, Budget{}, 1);
  auto find = [&](int bx, int by, int tx, int ty, int z) {
    return config_of(space, {{4, 8, 16}, {4, 8, 16, 32}, {1, 2, 4}, {1, 2, 4}, {0, 1}}, {bx, by, tx, ty, z});
  };
  using V = std::vector<std::size_t>;
  // both pairs differ: both exchanged, then the tiles alone (the blocks alone give 16 * 4 == 64)
  EXPECT_EQ(ctx.neighbours(find(8, 16, 4, 1, 1), Neighbourhood::mirror),
            (V{find(16, 8, 1, 4, 1), find(8, 16, 1, 4, 1)}));
  EXPECT_EQ(ctx.neighbours(find(8, 16, 2, 1, 1), Neighbourhood::mirror),
            (V{find(16, 8, 1, 2, 1), find(8, 16, 1, 2, 1), find(16, 8, 2, 1, 1)}));
  // 32 is no block_size_x: the tiles alone
  EXPECT_EQ(ctx.neighbours(find(8, 32, 2, 1, 0), Neighbourhood::mirror), (V{find(8, 32, 1, 2, 0)}));
  // equal tiles: the blocks alone
  EXPECT_EQ(ctx.neighbours(find(4, 8, 2, 2, 0), Neighbourhood::mirror), (V{find(8, 4, 2, 2, 0)}));
  // the exchange of both breaks the condition (16 * 4 == 64): each pair alone
  EXPECT_EQ(ctx.neighbours(find(4, 16, 1, 4, 0), Neighbourhood::mirror),
            (V{find(4, 16, 4, 1, 0), find(16, 4, 1, 4, 0)}));
  EXPECT_TRUE(ctx.neighbours(find(8, 8, 2, 2, 1), Neighbourhood::mirror).empty());
  // a space without x/y pairs has no mirrors
  auto plain = small_space();
  TableEvaluator ev2(std::vector<std::optional<double>>(plain.size(), 1.0), std::vector<double>(plain.size(), 0.1));
  Context other(plain, ev2, Budget{}, 1);
  EXPECT_TRUE(other.neighbours(5, Neighbourhood::mirror).empty());
}

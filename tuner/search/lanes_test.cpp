// Strategies proposing batches (Context::evaluate_batch, lanes.h) on the real measured spaces of the
// strategy tests: one evaluation at a time is unchanged, batches never exceed the evaluator's
// parallelism, every evaluation of every lane counts against the budget, and a seed gives the
// same batches from run to run.
#include <gtest/gtest.h>

#include <set>

#include "common/error.h"
#include "search/lanes.h"
#include "search/replay_fixture.h"

using namespace tune;
using namespace tune::search;
using namespace tune::search::testing;

namespace {

// A table that takes `lanes` configurations at once and records every batch.
class Batches : public Evaluator {
 public:
  Batches(const Problem& p, std::size_t lanes) : table_(p.objective, p.cost_s, lanes) {}
  std::optional<double> evaluate(std::size_t config) override {
    batches.push_back({config});
    return table_.evaluate(config);
  }
  std::vector<std::optional<double>> evaluate_batch(const std::vector<std::size_t>& configs) override {
    batches.push_back(configs);
    return table_.evaluate_batch(configs);
  }
  double elapsed_s() const override { return table_.elapsed_s(); }
  std::size_t parallelism() const override { return table_.parallelism(); }
  std::vector<std::vector<std::size_t>> batches;

 private:
  TableEvaluator table_;
};

struct Run {
  std::vector<std::vector<std::size_t>> batches;
  std::size_t evaluations = 0;
  double best = 0, elapsed_s = 0;
};

Run run_batches(const std::string& strategy, const Problem& p, std::size_t lanes, Budget budget, std::uint64_t seed,
                StrategyOptions options = {}) {
  Batches ev(p, lanes);
  Context ctx(p.space, ev, budget, seed, std::move(options));
  Run r;
  r.evaluations = run(strategy, ctx);
  r.batches = ev.batches;
  r.best = ctx.best_objective();
  r.elapsed_s = ev.elapsed_s();
  return r;
}

std::vector<std::size_t> flat(const Run& r) {
  std::vector<std::size_t> out;
  for (const auto& b : r.batches) out.insert(out.end(), b.begin(), b.end());
  return out;
}

class EveryStrategyInBatches : public ::testing::TestWithParam<std::string> {};

INSTANTIATE_TEST_SUITE_P(Search, EveryStrategyInBatches,
                         ::testing::Values("brute_force", "random_sample", "simulated_annealing", "genetic_algorithm",
                                           "greedy_ils", "greedy_mls", "diff_evo", "pso", "firefly_algorithm",
                                           "dual_annealing", "bayes_opt"));

}  // namespace

TEST_P(EveryStrategyInBatches, OneLaneEvaluatesAsBefore) {
  const Problem& p = dedispersion();
  const auto one = run_batches(GetParam(), p, 1, Budget{120, std::nullopt}, 7);
  const auto before = replay(GetParam(), p, Budget{120, std::nullopt}, 7);
  EXPECT_EQ(flat(one), before.visits);
  for (const auto& b : one.batches) EXPECT_EQ(b.size(), 1u);
}

TEST_P(EveryStrategyInBatches, FourLanesEvaluateAtMostFourAtOnceWithinTheBudget) {
  const Problem& p = convolution();
  const auto r = run_batches(GetParam(), p, 4, Budget{160, std::nullopt}, 11);
  const auto all = flat(r);
  EXPECT_EQ(r.evaluations, all.size());
  EXPECT_LE(all.size(), 160u);
  EXPECT_GE(all.size(), 150u) << "the lanes left much of the budget unused";
  EXPECT_EQ(std::set<std::size_t>(all.begin(), all.end()).size(), all.size()) << "a configuration evaluated twice";
  std::size_t full = 0;
  for (const auto& b : r.batches) {
    EXPECT_LE(b.size(), 4u);
    EXPECT_GE(b.size(), 1u);
    full += b.size() == 4;
  }
  // Most batches keep all four busy (the evaluations over four, at least 60% of the way).
  EXPECT_GE(full, 6 * all.size() / 4 / 10) << r.batches.size() << " batches";
  for (std::size_t c : all) EXPECT_TRUE(p.space.satisfies(p.space.config_values(c))) << p.space.params_json(c);
}

TEST_P(EveryStrategyInBatches, BatchesAreTheSameForASeed) {
  const Problem& p = dedispersion();
  const auto a = run_batches(GetParam(), p, 3, Budget{90, std::nullopt}, 21);
  const auto b = run_batches(GetParam(), p, 3, Budget{90, std::nullopt}, 21);
  const auto c = run_batches(GetParam(), p, 3, Budget{90, std::nullopt}, 22);
  EXPECT_EQ(a.batches, b.batches);
  if (GetParam() != "brute_force") {
    EXPECT_NE(a.batches, c.batches);
  }
}

TEST_P(EveryStrategyInBatches, StopsAtTheFirstBatchThatReachesTheTimeLimit) {
  const Problem& p = convolution();
  const double limit = 60.0;  // simulated seconds: some 80 evaluations of this space on four lanes
  const auto r = run_batches(GetParam(), p, 4, Budget{std::nullopt, limit}, 9);
  ASSERT_GT(r.batches.size(), 5u);
  EXPECT_GE(r.elapsed_s, limit);
  // the batch that crossed the limit began before it
  double last = 0;
  for (std::size_t c : r.batches.back()) last = std::max(last, p.cost_s[c]);
  EXPECT_LT(r.elapsed_s - last, limit + 1e-9);
}

TEST(Batch, ASimulatedBatchTakesItsLongestLane) {
  const std::vector<std::optional<double>> objective{1.0, 2.0, std::nullopt, 4.0, 5.0};
  TableEvaluator t(objective, {3.0, 1.0, 1.0, 2.0, 4.0}, 2);
  EXPECT_EQ(t.parallelism(), 2u);
  // lanes: 0 takes 3 s; 1 takes 1 s, then config 2 (1 s), then config 3 (2 s): 4 s; the batch 4 s
  const auto r = t.evaluate_batch({0, 1, 2, 3});
  EXPECT_EQ(r, (std::vector<std::optional<double>>{1.0, 2.0, std::nullopt, 4.0}));
  EXPECT_DOUBLE_EQ(t.elapsed_s(), 4.0);
  (void)t.evaluate_batch({4});
  EXPECT_DOUBLE_EQ(t.elapsed_s(), 8.0);
  TableEvaluator one(objective, {3.0, 1.0, 1.0, 2.0, 4.0});
  (void)one.evaluate_batch({0, 1, 2, 3});
  EXPECT_DOUBLE_EQ(one.elapsed_s(), 7.0);  // one lane: the sum
}

TEST(Batch, RevisitsAreFreeDuplicatesCountOnceAndTheBudgetCutsTheBatch) {
  const Problem& p = dedispersion();
  Batches ev(p, 4);
  Context ctx(p.space, ev, Budget{5, std::nullopt}, 1);
  const auto first = ctx.evaluate_batch({10, 11, 10, 12});
  ASSERT_EQ(first.size(), 4u);
  EXPECT_EQ(first[0], first[2]);
  EXPECT_EQ(ctx.evaluations(), 3u);
  ASSERT_EQ(ev.batches.size(), 1u);
  EXPECT_EQ(ev.batches[0], (std::vector<std::size_t>{10, 11, 12}));
  // two more fit the budget; the third is left out: recorded first, then Stop
  EXPECT_THROW(ctx.evaluate_batch({11, 13, 14, 15}), Stop);
  EXPECT_EQ(ctx.evaluations(), 5u);
  EXPECT_TRUE(ctx.visited(13));
  EXPECT_TRUE(ctx.visited(14));
  EXPECT_FALSE(ctx.visited(15));
  EXPECT_EQ(ev.batches.back(), (std::vector<std::size_t>{13, 14}));
  // revisits only: answered from memory, nothing evaluated
  const auto again = ctx.evaluate_batch({10, 14});
  EXPECT_EQ(again[1], *ctx.result(14));
  EXPECT_EQ(ev.batches.size(), 2u);
  EXPECT_THROW(ctx.evaluate_batch({15, 16}), Stop);  // nothing left to spend
  EXPECT_EQ(ev.batches.size(), 2u);
}

TEST(Batch, AnErrorInALaneReachesTheCaller) {
  const Problem& p = convolution();
  EXPECT_THROW(run_batches("simulated_annealing", p, 3, Budget{30, std::nullopt}, 1, {{"T", "warm"}}), InputError);
}

TEST(Batch, FourLanesOfBayesOptStillBeatRandomSampling) {
  // The price of batches: four bayes_opt lanes with a quarter of the budget each, against random
  // sampling with the whole budget, over a few seeds.
  const Problem& p = dedispersion();
  double lanes = 0, random = 0;
  for (std::uint64_t s = 1; s <= 4; ++s) {
    lanes += run_batches("bayes_opt", p, 4, Budget{200, std::nullopt}, s).best;
    random += run_batches("random_sample", p, 4, Budget{200, std::nullopt}, s).best;
  }
  EXPECT_LT(lanes, random);
}

TEST(Batch, AnEvaluatorErrorEndsEveryLaneAndReachesTheCaller) {
  // A replay whose cache lacks a configuration throws from the evaluator, on the batching thread.
  class Failing : public Batches {
   public:
    using Batches::Batches;
    std::vector<std::optional<double>> evaluate_batch(const std::vector<std::size_t>& configs) override {
      if (batches.size() == 3) throw InputError("cache.json: a configuration is missing");
      return Batches::evaluate_batch(configs);
    }
  };
  const Problem& p = dedispersion();
  Failing ev(p, 4);
  Context ctx(p.space, ev, Budget{100, std::nullopt}, 3);
  EXPECT_THROW(run("greedy_ils", ctx), InputError);
  EXPECT_EQ(ev.batches.size(), 3u);  // nothing evaluated after the failure
}

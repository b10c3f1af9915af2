// The default-choosing rule and the leave-one-cache-out protocol: on hand-made score tables (the
// rule's cases, exactly), and on a real evaluation of two benchmark_hub caches (intervals that
// bracket the mean, folds that score the held-out cache with the other cache's choice).
#include <gtest/gtest.h>

#include <cmath>

#include "common/error.h"
#include "evaluate/select.h"
#include "interop/test_util.h"

namespace tune::evaluate {
namespace {

// A Result with the given point scores [strategy][cache] and, per cell, resamples equal to the
// point score plus `jitter[b]`.
Result table(const std::vector<std::vector<double>>& scores, const std::vector<double>& jitter = {}) {
  Result r;
  r.options.resamples = jitter.size();
  for (std::size_t p = 0; p < scores.at(0).size(); ++p) r.problems.push_back("cache" + std::to_string(p));
  for (std::size_t s = 0; s < scores.size(); ++s) {
    r.strategies.push_back("s" + std::to_string(s));
    r.cells.emplace_back();
    for (double v : scores[s]) {
      Cell c;
      c.curve = Curve{};
      c.curve->mean = v;
      for (double j : jitter) c.resampled.push_back(v + j);
      r.cells.back().push_back(c);
    }
  }
  return r;
}

TEST(Select, PrefersTheBestMeanAmongStrategiesNeverBelowZero) {
  // s0 has the best mean but is below 0 on cache 2; s1 is never below 0.
  const Result r = table({{0.9, 0.9, -0.1}, {0.5, 0.5, 0.1}, {0.2, 0.2, 0.2}});
  EXPECT_EQ(choose(r, {0, 1, 2}), 1u);
  EXPECT_EQ(choose(r, {0, 1}), 0u);  // without cache 2, s0 is safe and best
}

TEST(Select, WithoutASafeStrategyTakesTheBestWorstCache) {
  const Result r = table({{0.9, -0.5}, {0.1, -0.2}});
  EXPECT_EQ(choose(r, {0, 1}), 1u);
}

TEST(Select, AFailedCellRulesTheStrategyOut) {
  Result r = table({{0.9, 0.9}, {0.1, 0.1}});
  r.cells[0][1].curve.reset();
  EXPECT_EQ(choose(r, {0, 1}), 1u);
  EXPECT_FALSE(summarize(r, 0).mean.has_value());
}

TEST(Select, LeaveOneOutScoresEachChoiceOnTheCacheItDidNotSee) {
  // On caches 1 and 2, s0 is safe and best; left out, cache 0 sinks it. On caches {0, x}, s0 is
  // below 0 and s1 is chosen.
  const Result r = table({{-0.5, 0.9, 0.9}, {0.3, 0.4, 0.5}}, {-0.01, 0.0, 0.01});
  const Selection s = leave_one_out(r);
  ASSERT_EQ(s.folds.size(), 3u);
  EXPECT_EQ(s.folds[0].chosen, 0u);
  EXPECT_DOUBLE_EQ(*s.folds[0].held_out_score, -0.5);
  EXPECT_EQ(s.folds[1].chosen, 1u);
  EXPECT_DOUBLE_EQ(*s.folds[1].held_out_score, 0.4);
  EXPECT_EQ(s.folds[2].chosen, 1u);
  EXPECT_DOUBLE_EQ(*s.folds[2].held_out_score, 0.5);
  EXPECT_NEAR(*s.held_out_mean, (-0.5 + 0.4 + 0.5) / 3, 1e-12);
  EXPECT_DOUBLE_EQ(*s.held_out_worst, -0.5);
  EXPECT_EQ(s.choice, 1u);
  EXPECT_DOUBLE_EQ(s.stability, 1.0);
  const std::string text = format_selection(r, s);
  EXPECT_NE(text.find("chosen on every cache: s1"), std::string::npos) << text;
}

TEST(Select, TheIntervalComesFromTheResamples) {
  const Result r = table({{0.2, 0.4}}, {-0.1, -0.05, 0.0, 0.05, 0.1});
  const Summary m = summarize(r, 0);
  EXPECT_NEAR(*m.mean, 0.3, 1e-12);
  // Means 0.20, 0.25, ..., 0.40; percentiles 2.5 and 97.5 interpolated as numpy does.
  EXPECT_NEAR(*m.low, 0.205, 1e-12);
  EXPECT_NEAR(*m.high, 0.395, 1e-12);
  EXPECT_DOUBLE_EQ(*m.worst, 0.2);
  EXPECT_EQ(m.worst_cache, "cache0");
}

TEST(Select, LeaveOneOutNeedsTwoCaches) {
  const Result r = table({{0.5}});
  EXPECT_THROW(leave_one_out(r), InputError);
}

// A real evaluation: two caches, two strategies, 12 repeats.
TEST(Select, OnRealCachesTheIntervalBracketsTheScore) {
  using interop::testing::external;
  auto problems = load_problems({external("benchmark_hub/convolution_milo.json")},
                                {external("benchmark_hub/convolution_milo/MI250X.json.gz"),
                                 external("benchmark_hub/convolution_milo/A4000.json.gz")});
  Options o;
  o.repeats = 12;
  o.resamples = 50;
  const Result r = evaluate(problems, strategy_specs({"random_sample,greedy_ils"}, {}), o);
  for (std::size_t s = 0; s < 2; ++s) {
    ASSERT_EQ(r.cells[s][0].resampled.size(), 50u);
    const Summary m = summarize(r, s);
    ASSERT_TRUE(m.mean && m.low && m.high);
    EXPECT_LE(*m.low, *m.high);
    EXPECT_LE(*m.low, *m.mean + 1e-9);
    EXPECT_GE(*m.high, *m.mean - 1e-9);
    EXPECT_LT(*m.high - *m.low, 2.0);
  }
  const Selection sel = leave_one_out(r);
  ASSERT_EQ(sel.folds.size(), 2u);
  for (const Fold& f : sel.folds) {
    ASSERT_TRUE(f.chosen && f.held_out_score);
    EXPECT_DOUBLE_EQ(*f.held_out_score, r.cells[*f.chosen][f.held_out].curve->mean);
  }
}

}  // namespace
}  // namespace tune::evaluate

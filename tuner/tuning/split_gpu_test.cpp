// A size split over MPI ranks (tuning::Part), on the GPU (skips without one), in one process: the
// shares measure into databases of their own, which are merged (as rank 0 does) into the one the
// decision runs on. Brute force: the shares measure disjoint sets of configurations that together
// are the budget's, and none decides; the decision, which measures nothing new but its
// contenders, stores one verdict whose winner is among the best of all the shares' measurements.
// And the decide step's other use: a size measured whole but never decided is decided on a re-run. A strategy: each share spends its part of the budget with a seed of its own.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <map>
#include <set>

#include "run/device.h"
#include "store/merge.h"
#include "store/store.h"
#include "store/test_util.h"
#include "tuning/tuner.h"

namespace fs = std::filesystem;
using namespace tune;

namespace {

constexpr const char* kSize = "1024x1024";

tuning::Options options(const store::testing::TempDir& dir, const std::string& db, const std::string& strategy) {
  tuning::Options o;
  o.space = (fs::path(TUNE_SOURCE_DIR) / "spaces" / "transpose.json").string();
  o.sizes_text = kSize;
  o.sizes = sizes::parse(o.sizes_text);
  o.db = dir.file(db);
  o.strategy = strategy;
  o.max_fevals = 24;
  o.seed = 11;
  o.policy = {"min_samples=5"};
  return o;
}

std::map<std::string, double> measured(const std::string& db) {  // params -> objective, ok only
  auto s = store::Store::open(db, store::Store::Mode::read_only);
  store::MeasurementFilter f;
  f.kernel = "transpose";
  f.size = kSize;
  std::map<std::string, double> out;
  for (const auto& m : s.measurements(f))
    if (m.objective) out[m.params] = *m.objective;
  return out;
}

std::size_t decisions(const std::string& db) {
  auto s = store::Store::open(db, store::Store::Mode::read_only);
  return s.decisions("transpose").size();
}

// Runs the shares, merges them into `whole`, decides there; returns the shares' measurements.
std::vector<std::map<std::string, double>> split(const store::testing::TempDir& dir, const std::string& strategy,
                                                 std::size_t shares, const std::string& whole) {
  std::vector<std::map<std::string, double>> parts;
  for (std::size_t i = 0; i < shares; ++i) {
    auto o = options(dir, "share" + std::to_string(i) + ".db", strategy);
    o.share = {tuning::Part::search, i, shares};
    EXPECT_EQ(tuning::tune(o), 0);
    EXPECT_EQ(decisions(o.db), 0u) << "share " << i << " decided";
    parts.push_back(measured(o.db));
    auto into = store::Store::open(dir.file(whole), store::Store::Mode::read_write);
    auto from = store::Store::open(o.db, store::Store::Mode::read_only);
    store::merge(into, from);
  }
  auto o = options(dir, whole, strategy);
  o.share.part = tuning::Part::decide;
  EXPECT_EQ(tuning::tune(o), 0);
  return parts;
}

TEST(SplitGpu, BruteForceSharesCoverTheBudgetOnceAndOneDecisionTakesThemAll) {
  if (!run::gpu_available()) GTEST_SKIP() << "no GPU: " << run::gpu_unavailable_reason();
  store::testing::TempDir dir;
  const auto parts = split(dir, "brute_force", 3, "whole.db");
  std::set<std::string> all;
  for (const auto& p : parts) {
    EXPECT_EQ(p.size(), 8u);  // 24 configurations, every third to each share
    for (const auto& [params, ms] : p) EXPECT_TRUE(all.insert(params).second) << params << " measured twice";
  }
  EXPECT_EQ(all.size(), 24u);
  auto db = store::Store::open(dir.file("whole.db"), store::Store::Mode::read_only);
  const auto ds = db.decisions("transpose");
  ASSERT_EQ(ds.size(), 1u);
  EXPECT_EQ(ds.front().size, kSize);
  EXPECT_GE(ds.front().candidates.size(), 1u);
  const auto after = measured(dir.file("whole.db"));
  EXPECT_EQ(after.size(), 24u);  // nothing measured but the contenders, again
  // the winner is one of the shares' configurations, and the best there within the tie margin
  const auto best = std::min_element(after.begin(), after.end(), [](auto& a, auto& b) { return a.second < b.second; });
  const std::string winner = db.configuration_params(ds.front().winner_id).value_or("");
  ASSERT_TRUE(all.contains(winner)) << winner;
  // (first passes of the configurations the decision did not measure again may lie below it)
  EXPECT_LE(after.at(winner), best->second * 1.05) << winner;
}

TEST(SplitGpu, StrategySharesSpendTheirPartOfTheBudgetWithSeedsOfTheirOwn) {
  if (!run::gpu_available()) GTEST_SKIP() << "no GPU: " << run::gpu_unavailable_reason();
  store::testing::TempDir dir;
  const auto parts = split(dir, "bayes_opt", 2, "whole.db");
  ASSERT_EQ(parts.size(), 2u);
  EXPECT_EQ(parts[0].size(), 12u);  // 24 evaluations, 12 a share
  EXPECT_EQ(parts[1].size(), 12u);
  EXPECT_NE(parts[0], parts[1]);  // seeds apart: not the same search twice
  EXPECT_EQ(decisions(dir.file("whole.db")), 1u);
}

// A run that ended between a size's last measurement and its decision (killed, say): the same
// command again measures nothing new but decides the size (Sweep::size_needs_work).
TEST(ResumeGpu, ASizeMeasuredWholeButNotDecidedIsDecidedByTheRerun) {
  if (!run::gpu_available()) GTEST_SKIP() << "no GPU: " << run::gpu_unavailable_reason();
  store::testing::TempDir dir;
  const auto o = options(dir, "resume.db", "brute_force");
  ASSERT_EQ(tuning::tune(o), 0);
  ASSERT_EQ(decisions(o.db), 1u);
  {
    auto db = store::Store::open(o.db, store::Store::Mode::read_write);
    db.database().exec("DELETE FROM decisions");
  }
  ASSERT_EQ(decisions(o.db), 0u);
  const auto before = measured(o.db);
  ASSERT_EQ(tuning::tune(o), 0);
  EXPECT_EQ(decisions(o.db), 1u);
  const auto after = measured(o.db);
  EXPECT_EQ(after.size(), before.size());  // the same configurations, none added
  for (const auto& [params, ms] : before) EXPECT_TRUE(after.contains(params)) << params;
}

}  // namespace

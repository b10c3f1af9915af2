// The selection rule on small hand-made models, and the builder on hand-made measurements.
#include "select/select.h"

#include <gtest/gtest.h>

#include <cmath>

#include "select/build.h"

using namespace tune_select;

namespace {

// Sizes 256, 512, 1024 (squares); candidate 0 is scalar (alignment 1), candidate 1 needs
// multiples of 4 on both axes, candidate 2 of 2. Candidate 1 is best at 512 and above, 0 at 256.
struct Small {
  Point sizes[3] = {
      {256, 256, 1, 0, 1.0, 1.0}, {512, 512, 1, 1, 2.0, 2.0}, {1024, 1024, 1, 1, 4.0, 4.0}};
  Candidate cands[3] = {{0, {1, 1, 1}}, {1, {4, 4, 1}}, {2, {2, 2, 1}}};
  unsigned regret[9] = {10000, 10500, 10100,   //
                        11000, 10000, 10300,   //
                        12000, 10000, 10200};  //
  Model model() const { return {sizes, 3, cands, 3, regret, 0}; }
};

}  // namespace

TEST(Select, ExactIsTheStoredDecision) {
  Small s;
  s.sizes[1].decision = 2;  // a tie-break chose candidate 2 at 512
  const Choice c = select(s.model(), 512, 512);
  EXPECT_EQ(c.how, How::exact);
  EXPECT_EQ(c.variant, 2u);
  EXPECT_EQ(c.nearest, 1u);
}

TEST(Select, PredictsFromTheSizesAroundIt) {
  const Small s;
  const Choice near_small = select(s.model(), 264, 264);  // nearer 256: candidate 0 predicted best
  EXPECT_EQ(near_small.how, How::predicted);
  EXPECT_EQ(near_small.variant, 0u);
  EXPECT_EQ(near_small.nearest, 0u);
  // 512 has 3.8 times the elements of 264: it reaches kFar / 3.8 = 1.06, and 264 lies at 1.12
  ASSERT_EQ(near_small.count, 1u);
  EXPECT_EQ(near_small.evidence[0].size, 0u);
  // 2.9 times: reach 1.37, distance 0.81. Both sizes count, nearly evenly: candidate 2 (1.01 and
  // 1.03 there) is predicted 1.017, candidate 0 (1.00 and 1.10) 1.036: the robust one wins
  const Choice both = select(s.model(), 300, 300);
  EXPECT_EQ(both.variant, 2u);
  EXPECT_NEAR(both.regret, 1.0175, 1e-3);
  ASSERT_EQ(both.count, 2u);
  EXPECT_EQ(both.evidence[0].size, 0u);
  EXPECT_EQ(both.evidence[1].size, 1u);
  const Choice mid = select(s.model(), 720, 720);
  EXPECT_EQ(mid.variant, 1u);
  EXPECT_NEAR(mid.regret, 1.0, 0.01);  // 1.05 at 256 weighs little against 1.00 at 512 and 1024
  // beyond the range of an axis: extrapolated; a rectangle inside both axes' ranges: predicted
  EXPECT_EQ(select(s.model(), 4096, 4096).how, How::extrapolated);
  EXPECT_EQ(select(s.model(), 4096, 4096).variant, 1u);
  EXPECT_EQ(select(s.model(), 128, 512).how, How::extrapolated);
  EXPECT_EQ(select(s.model(), 1024, 256).how, How::predicted);
}

TEST(Select, NeverAConfigurationWhoseFastPathDoesNotApply) {
  const Small s;
  // 722 is even but not a multiple of 4: candidate 1 has no evidence in its class there
  const Choice c = select(s.model(), 722, 722);
  EXPECT_FALSE(c.applies && c.variant == 1u);
  EXPECT_EQ(c.variant, 2u);  // aligned to 2: measured in its class, better than the scalar one
  EXPECT_TRUE(c.applies);
  EXPECT_EQ(select(s.model(), 721, 721).variant, 0u);  // odd: only the scalar one applies
  // measurements at odd sizes put candidate 1 in its class again: the data decides
  Point sizes[4] = {{256, 256, 1, 0, 1.0, 1.0},
                    {511, 511, 1, 1, 2.0, 2.0},
                    {512, 512, 1, 1, 2.0, 2.0},
                    {1024, 1024, 1, 1, 4.0, 4.0}};
  unsigned regret[12] = {10000, 10500, 10100, 11000, 10000, 10300,
                         11000, 10000, 10300, 12000, 10000, 10200};
  const Model m{sizes, 4, s.cands, 3, regret, 0};
  const Choice odd = select(m, 509, 509);
  EXPECT_EQ(odd.variant, 1u);
  EXPECT_FALSE(odd.applies);
  EXPECT_TRUE(odd.in_class);
}

// At an odd size the scalar candidate is judged against the candidates as they would run there
// (the scalar one at the aligned sizes), not against a vector candidate's time at the aligned sizes
// nearby: 1.00 at all three sizes, while the vector one is measured 1.25 at the odd one.
TEST(Select, FollowsTheSizesDivisibilityClass) {
  Point sizes[3] = {
      {1024, 1024, 1, 1, 1.0, 1.0}, {1487, 1487, 1, 0, 1.0, 1.0}, {2048, 2048, 1, 1, 1.0, 1.0}};
  const Candidate cands[2] = {{0, {1, 1, 1}}, {1, {4, 4, 1}}};
  const unsigned regret[6] = {
      13000, 10000,   // 1024: the vector one best
      10000, 12500,   // 1487: the scalar one best (the vector path realigned)
      13000, 10000};  // 2048
  const Model m{sizes, 3, cands, 2, regret, 1};
  const Choice odd = select(m, 2047, 2047);
  EXPECT_EQ(odd.variant, 0u);
  ASSERT_EQ(odd.count, 3u);  // every size is in a scalar configuration's class, 1487 nearest
  EXPECT_EQ(odd.evidence[0].size, 1u);
  EXPECT_NEAR(odd.regret, 1.0, 1e-9);
  EXPECT_EQ(select(m, 2040, 2040).variant, 1u);  // a multiple of 4: the aligned sizes decide
  Choice top[2];
  ASSERT_EQ(top_candidates(m, 2047, 2047, 1, top, 2), 2u);
  EXPECT_EQ(top[1].variant, 1u);
  EXPECT_TRUE(top[1].in_class);  // measured at an odd size: in its class, slower
  EXPECT_GT(top[1].regret, 1.2);
}

TEST(Select, TopCandidatesRankAsSelectDoes) {
  const Small s;
  Choice top[3];
  ASSERT_EQ(top_candidates(s.model(), 720, 720, 1, top, 5), 3u);
  EXPECT_EQ(top[0].variant, select(s.model(), 720, 720).variant);
  EXPECT_LE(top[0].regret, top[1].regret);
  EXPECT_LE(top[1].regret, top[2].regret);
  Small t;
  t.sizes[1].decision = 2;
  ASSERT_EQ(top_candidates(t.model(), 512, 512, 1, top, 2), 2u);
  EXPECT_EQ(top[0].variant, 2u);  // the decision first at a measured size
  EXPECT_EQ(top[1].variant, 1u);
}

// Past the range the band's sizes (at least half 4096^2's elements: 3000^2 and 4096^2) score
// each candidate. Candidate 0 is best at 4096^2 (its decision there) and 1.30 at 3000^2, candidate
// 1 the reverse at 1.03 and 1.00. At 4200x2000 (no more elements than the band's geometric mean:
// no trend to follow) candidate 1's geometric mean, 1.015 against 1.14, wins over the nearest
// size's decision. At 6000^2, 1.1 log-elements past the band's mean, each geometric mean moves
// along its trend by kTrend: candidate 0 gains 30% over the band and is predicted below 1 (reported
// as 1), candidate 1 loses 3% and is predicted 1.032: candidate 0 wins there.
TEST(Select, PastTheRangeTheBandScoresEachCandidateAndFollowsItsTrend) {
  Point sizes[4] = {{1024, 1024, 1, 0, 1.0, 1.0},
                    {2048, 2048, 1, 1, 4.0, 4.0},
                    {3000, 3000, 1, 1, 9.0, 9.0},
                    {4096, 4096, 1, 0, 16.0, 16.0}};
  const Candidate cands[3] = {{0, {1, 1, 1}}, {1, {1, 1, 1}}, {2, {4, 4, 1}}};
  const unsigned regret[12] = {10000, 10500, 10200,  //
                               11000, 10000, 10100,  //
                               13000, 10000, 10050,  //
                               10000, 10300, 10400};
  const Model m{sizes, 4, cands, 3, regret, 0};
  const Choice at_scale = select(m, 4200, 2000);
  EXPECT_EQ(at_scale.how, How::extrapolated);
  EXPECT_EQ(at_scale.variant, 1u);
  EXPECT_NEAR(at_scale.regret, std::sqrt(1.03 * 1.00), 1e-4);
  ASSERT_EQ(at_scale.count, 2u);  // the band's sizes, nearest first
  EXPECT_EQ(at_scale.evidence[0].size, 2u);
  EXPECT_EQ(at_scale.evidence[1].size, 3u);
  Choice far[2];
  ASSERT_EQ(top_candidates(m, 6000, 6000, 1, far, 2), 2u);
  EXPECT_EQ(far[0].how, How::extrapolated);
  EXPECT_EQ(far[0].variant, 0u);
  EXPECT_EQ(far[0].regret, 1.0);
  EXPECT_EQ(far[1].variant, 1u);
  const double slope1 = std::log(1.03) / std::log(4096.0 * 4096.0 / (3000.0 * 3000.0));
  EXPECT_NEAR(far[1].regret, std::exp(std::log(1.03) / 2 + slope1 * kTrend), 1e-4);
  // An odd size: candidate 2's fast path applies at no band size as it does not there: unscored.
  Choice top[3];
  ASSERT_EQ(top_candidates(m, 6001, 6001, 1, top, 3), 3u);
  EXPECT_EQ(top[0].variant, 0u);
  EXPECT_EQ(top[2].variant, 2u);
  EXPECT_EQ(top[2].count, 0u);
  // Over the range with fewer elements (a thin rectangle, 2.1 M): the band at its own scale, the
  // sizes of at least half its elements (2048^2, 3000^2, 4096^2; 1024^2 is just under); candidate
  // 1's geometric mean over them is (1.00 x 1.00 x 1.03)^(1/3), candidate 0's (1.10 x 1.30)^(1/3).
  const Choice thin = select(m, 8191, 257);  // odd: candidate 2's fast path applies nowhere as here
  EXPECT_EQ(thin.how, How::extrapolated);
  EXPECT_EQ(thin.variant, 1u);
  EXPECT_NEAR(thin.regret, std::cbrt(1.03), 1e-4);
  ASSERT_EQ(thin.count, 3u);
  EXPECT_EQ(thin.evidence[0].size, 1u);  // the nearest of the three: 2048^2
  // Under the range nothing is over it: the nearest sizes decide (1024^2's decision, candidate 0).
  const Choice small = select(m, 512, 512);
  EXPECT_EQ(small.how, How::extrapolated);
  EXPECT_EQ(small.variant, 0u);
  ASSERT_GT(small.count, 0u);
  EXPECT_EQ(small.evidence[0].size, 0u);
}

TEST(Select, AnEmptyModelGivesTheFallback) {
  const Model m{nullptr, 0, nullptr, 0, nullptr, 7};
  const Choice c = select(m, 100, 100);
  EXPECT_EQ(c.variant, 7u);
  EXPECT_EQ(c.how, How::none);
  Choice top[1];
  EXPECT_EQ(top_candidates(m, 1, 1, 1, top, 1), 0u);
}

TEST(Build, KeepsTheBestOfEachAlignmentAndEveryDecision) {
  using tune::select::SizeMeasurements;
  std::vector<SizeMeasurements> in(2);
  in[0].size = {512, 512, 1};
  in[1].size = {256, 256, 1};  // out of order: the model sorts by size
  for (auto& m : in) {
    m.decision = "slow";  // a decision far from the best is kept anyway
    m.decision_ms = 9;
    for (int i = 0; i < 8; ++i) m.times.emplace_back("v4_" + std::to_string(i), 1.0 + 0.01 * i);
    m.times.emplace_back("v1_a", 1.5);  // the scalar class's best, 1.5x the best: kept
    m.times.emplace_back("v1_b", 1.6);
    m.times.emplace_back("v1_c", 1.8);  // beyond kKeep of its class's best
    m.times.emplace_back("slow", 9);
  }
  const auto align = [](const std::string& k) -> tune::select::Extents {
    return k.starts_with("v4") ? tune::select::Extents{4, 4, 1} : tune::select::Extents{1, 1, 1};
  };
  const tune::select::Data d = tune::select::build(in, align);
  std::vector<std::string> expect = {"v4_0", "v4_1", "v4_2", "v4_3",
                                     "v1_a", "v1_b", "slow"};  // by mean regret
  EXPECT_EQ(d.variants, expect);
  ASSERT_EQ(d.points.size(), 2u);
  EXPECT_EQ(d.points[0].x, 256);
  EXPECT_EQ(d.variants[d.points[0].decision], "slow");
  EXPECT_EQ(d.candidates[4].align[0], 1);
  EXPECT_EQ(d.candidates[0].align[0], 4);
  EXPECT_EQ(d.regret[0 * 7 + 4], 15000u);
  EXPECT_EQ(d.regret[1 * 7 + 0], 10000u);
  EXPECT_EQ(select(d.model(), 300, 300).variant, 0u);
}

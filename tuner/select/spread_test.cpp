// Online tuning's candidates: the model's ranking spread over the alignments (select/spread.h).
#include "select/spread.h"

#include <gtest/gtest.h>

#include <array>
#include <vector>

using tune_select::kPerAlignment;
using tune_select::spread;

namespace {
using Align = std::array<long long, 3>;
constexpr Align kScalar{1, 1, 1}, kVec2{2, 2, 1}, kVec4{4, 4, 1};
}  // namespace

TEST(Spread, OneAlignmentKeepsTheRankingsOrder) {
  const std::vector<Align> ranked(10, kScalar);
  EXPECT_EQ(spread(ranked, 4), (std::vector<std::size_t>{0, 1, 2, 3}));
  EXPECT_EQ(spread(ranked, 20).size(), 10u);
  EXPECT_TRUE(spread(ranked, 0).empty());
  EXPECT_TRUE(spread({}, 8).empty());
}

TEST(Spread, EachAlignmentKeepsItsBestTwo) {
  // Scalar variants fill the top of the ranking; the vector ones come last.
  std::vector<Align> ranked(12, kScalar);
  ranked.insert(ranked.end(), {kVec4, kVec2, kVec4, kVec2, kVec4, kVec2});
  ASSERT_EQ(kPerAlignment, 2u);
  // The first, the scalar's second, each vector alignment's best two, then the ranking.
  EXPECT_EQ(spread(ranked, 8), (std::vector<std::size_t>{0, 1, 2, 3, 12, 13, 14, 15}));
  EXPECT_EQ(spread(ranked, 6), (std::vector<std::size_t>{0, 1, 12, 13, 14, 15}));
  // Fewer places than alignments x 2: the alignments' best in rank order.
  EXPECT_EQ(spread(ranked, 3), (std::vector<std::size_t>{0, 1, 12}));
  EXPECT_EQ(spread(ranked, 1), (std::vector<std::size_t>{0}));
}

TEST(Spread, TheFirstIsAlwaysKept) {
  const std::vector<Align> ranked{kVec4, kScalar, kScalar, kVec2, kVec2, kScalar};
  EXPECT_EQ(spread(ranked, 1), (std::vector<std::size_t>{0}));
  EXPECT_EQ(spread(ranked, 4), (std::vector<std::size_t>{0, 1, 2, 3}));
  EXPECT_EQ(spread(ranked, 5), (std::vector<std::size_t>{0, 1, 2, 3, 4}));
}

TEST(Spread, AlignmentsDifferPerAxis) {
  // 4 x 1 and 1 x 4 are two alignments (a vector along x against one along y).
  const std::vector<Align> ranked{kScalar, kScalar, kScalar, {4, 1, 1}, {1, 4, 1}, {4, 1, 1}};
  EXPECT_EQ(spread(ranked, 4), (std::vector<std::size_t>{0, 1, 3, 4}));
}

// On a model: top_candidates' ranking puts the four scalar candidates first (1.00-1.03 at both
// sizes) and the vector one last (1.10); three places keep the vector one's.
TEST(Spread, OnAModelTheRankingKeepsEachAlignmentsBest) {
  using namespace tune_select;
  const Point sizes[2] = {{256, 256, 1, 0, 1.0, 1.0}, {512, 512, 1, 0, 4.0, 4.0}};
  const Candidate cands[5] = {
      {0, {1, 1, 1}}, {1, {1, 1, 1}}, {2, {1, 1, 1}}, {3, {1, 1, 1}}, {4, {4, 4, 1}}};
  const unsigned regret[10] = {10000, 10100, 10200, 10300, 11000,  //
                               10000, 10100, 10200, 10300, 11000};
  const Model m{sizes, 2, cands, 5, regret, 0};
  Choice top[3];
  ASSERT_EQ(top_candidates(m, 400, 400, 1, top, 3), 3u);
  EXPECT_EQ(top[2].variant, 2u);  // the plain ranking's third: a scalar one
  const auto spread3 = spread_candidates(m, 400, 400, 1, 3);
  ASSERT_EQ(spread3.size(), 3u);
  EXPECT_EQ(spread3[0].variant, 0u);
  EXPECT_EQ(spread3[1].variant, 1u);
  EXPECT_EQ(spread3[2].variant, 4u);
  EXPECT_EQ(spread_candidates(m, 400, 400, 1, 9).size(), 5u);
  EXPECT_TRUE(spread_candidates(m, 400, 400, 1, 0).empty());
}

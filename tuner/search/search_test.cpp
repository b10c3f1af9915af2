#include "search/search.h"

#include <gtest/gtest.h>

#include <algorithm>

#include "common/error.h"

using namespace tune::search;

TEST(Search, BruteForceIsDeclarationOrder) {
  auto o = visit_order("brute_force", 5, 42);
  EXPECT_EQ(o, (std::vector<std::size_t>{0, 1, 2, 3, 4}));
}

TEST(Search, RandomSampleIsASeededPermutation) {
  auto a = visit_order("random_sample", 1000, 7), b = visit_order("random_sample", 1000, 7);
  auto c = visit_order("random_sample", 1000, 8);
  EXPECT_EQ(a, b);
  EXPECT_NE(a, c);
  auto sorted = a;
  std::sort(sorted.begin(), sorted.end());
  EXPECT_EQ(sorted, visit_order("brute_force", 1000, 0));
  EXPECT_NE(a, sorted);
}

TEST(Search, RngIsTheSameEverywhere) {
  Rng r(1);
  EXPECT_EQ(r.next(), 0x910a2dec89025cc1ULL);  // splitmix64's published first output for seed 1
  Rng s(3);
  for (int i = 0; i < 1000; ++i) EXPECT_LT(s.below(10), 10u);
}

TEST(Search, UnknownStrategyIsAnError) { EXPECT_THROW(check_strategy("annealing"), tune::InputError); }

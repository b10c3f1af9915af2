#include "common/suggest.h"

#include <gtest/gtest.h>

#include <array>

using namespace tune;

TEST(Suggest, ClosestKnownNameWithinAFewEdits) {
  constexpr std::array<std::string_view, 4> known = {"bytes", "flops", "ceilings", "reference"};
  EXPECT_EQ(closest_name("byte", known), "bytes");
  EXPECT_EQ(closest_name("ceilngs", known), "ceilings");
  EXPECT_EQ(closest_name("refrence", known), "reference");
  EXPECT_EQ(closest_name("statistic", known), "");  // nothing close: no guess
  EXPECT_EQ(closest_name("", known), "");
  EXPECT_EQ(did_you_mean("flop", known), " (did you mean 'flops'?)");
  EXPECT_EQ(did_you_mean("gemm", known), "");
  EXPECT_EQ(closest_name(std::string(100000, 'x'), known), "");
}

TEST(Suggest, ASwapOfNeighboursIsOneEdit) {
  constexpr std::array<std::string_view, 3> commands = {"run", "best", "header"};
  EXPECT_EQ(closest_name("bset", commands), "best");
  EXPECT_EQ(closest_name("haeder", commands), "header");
}

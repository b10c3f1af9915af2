#include "sizes/sizes.h"

#include <gtest/gtest.h>

#include "common/error.h"

using tune::sizes::parse;

TEST(Sizes, RangeDefaultsStepToStart) {
  auto s = parse("128:4096");
  ASSERT_EQ(s.size(), 32u);
  EXPECT_EQ(s.front().dims[0], 128);
  EXPECT_EQ(s[1].dims[0], 256);
  EXPECT_EQ(s.back().dims[0], 4096);
}

TEST(Sizes, RangeWithStepAndLists) {
  auto s = parse("256:1024:256,1000, 4097");
  ASSERT_EQ(s.size(), 6u);
  EXPECT_EQ(s[3].dims[0], 1024);
  EXPECT_EQ(s[4].label(), "1000");
  EXPECT_EQ(s[5].dims[0], 4097);
}

TEST(Sizes, TwoDimensionalItems) {
  auto s = parse("4096x2048,1023X1000");
  ASSERT_EQ(s.size(), 2u);
  EXPECT_EQ(s[0].rank, 2);
  EXPECT_EQ(s[0].dims[0], 4096);
  EXPECT_EQ(s[0].dims[1], 2048);
  EXPECT_EQ(s[0].label(), "4096x2048");
  EXPECT_EQ(s[1].label(), "1023x1000");
}

TEST(Sizes, SingleNumberFillsTheProblemRank) {
  auto s = parse("1000")[0];
  EXPECT_EQ(s.as_rank(2), (std::array<std::int64_t, 3>{1000, 1000, 1}));
  EXPECT_EQ(s.as_rank(1), (std::array<std::int64_t, 3>{1000, 1, 1}));
  auto r = parse("64x32")[0];
  EXPECT_EQ(r.as_rank(3), (std::array<std::int64_t, 3>{64, 32, 1}));
}

TEST(Sizes, BadInputNamesTheItem) {
  for (const char* bad : {"", "abc", "128:", ":4096", "4096:128", "0", "-5", "12x", "1,,2", "1:2:3:4", "2x2x2x2",
                          "1:2:0", "99999999999999999999"}) {
    try {
      parse(bad);
      FAIL() << "accepted '" << bad << "'";
    } catch (const tune::InputError& e) {
      EXPECT_NE(std::string(e.what()).find("bad --sizes"), std::string::npos) << e.what();
    }
  }
}

// Issue #16 finding 4: a range at the top of int64 stepped past it and never ended (4.3 GB in 13 s).
TEST(SizesBounds, HugeValuesAndCountsAreRefusedAtOnce) {
  using tune::sizes::parse;
  EXPECT_THROW(parse("9223372036854775807:9223372036854775807"), tune::InputError);
  EXPECT_THROW(parse("9223372036854775806:9223372036854775807:1"), tune::InputError);
  EXPECT_THROW(parse("1099511627777"), tune::InputError);  // 2^40 + 1
  EXPECT_EQ(parse("1099511627776").size(), 1u);            // 2^40
  EXPECT_THROW(parse("1:100001:1"), tune::InputError);
  EXPECT_THROW(parse("1:60000:1,1:60000:1"), tune::InputError);    // the total counts
  EXPECT_EQ(parse("1099511627000:1099511627776:1").size(), 777u);  // near the bound, exactly
  try {
    parse("9223372036854775807:9223372036854775807");
  } catch (const tune::InputError& e) {
    EXPECT_NE(std::string(e.what()).find("exceeds the largest problem dimension"), std::string::npos) << e.what();
  }
}

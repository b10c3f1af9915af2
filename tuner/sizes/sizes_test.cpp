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

// Issue #43 item 7: a bad number of a range names its part, not the whole range.
TEST(Sizes, ARangesBadStepIsNamed) {
  try {
    parse("128:4096:0");
    FAIL() << "accepted a step of 0";
  } catch (const tune::InputError& e) {
    EXPECT_NE(std::string(e.what()).find("step '0'"), std::string::npos) << e.what();
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

// The one size type also reads the stored form (a database's size label, a Kernel Tuner cache's
// problem size): 1 to 3 positive integers joined by 'x', with the rank they spell.
TEST(SizesLabel, ParsesOneToThreeDimensionsAndRoundTrips) {
  using tune::sizes::Size;
  EXPECT_EQ(Size::parse_label("4096"), Size::of(4096));
  EXPECT_EQ(Size::parse_label("4096x2048"), Size::of(4096, 2048));
  EXPECT_EQ(Size::parse_label("64x32x2"), Size::of(64, 32, 2));
  EXPECT_EQ(Size::parse_label("64x32x2").rank, 3);
  EXPECT_EQ(Size::parse_label("4096x1").label(), "4096x1");  // the rank is kept: not "4096"
  EXPECT_EQ(Size::parse_label("0064").label(), "64");
  for (const char* label : {"1", "128x128", "4096x2048x16"}) EXPECT_EQ(Size::parse_label(label).label(), label);
  for (const char* bad :
       {"", "x", "4096x", "x4096", "1x2x3x4", "0", "-5", "12a", "4096X2048", "99999999999999999999"}) {
    EXPECT_THROW(Size::parse_label(bad), tune::InputError) << bad;
  }
  // a --sizes item filled to a problem's rank is the stored size of that run
  EXPECT_EQ(tune::sizes::parse_one("512").full(2), Size::of(512, 512));
  EXPECT_EQ(tune::sizes::parse_one("512x256").full(3), Size::of(512, 256, 1));
  EXPECT_EQ(Size::of(3, 4, 5).elements(), 60.0);
}

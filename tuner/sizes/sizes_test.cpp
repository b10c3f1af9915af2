#include "sizes/sizes.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <numeric>

#include "common/error.h"
#include "sizes/design.h"

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

// The size design covers the classes the selection model needs, within the main job's budget.
TEST(Sizes, DesignCoversTheClassesWithinTheBudget) {
  const auto d = parse("design:128:4096");
  ASSERT_GE(d.size(), 42u);
  ASSERT_LE(d.size(), static_cast<std::size_t>(tune::sizes::kDesignDefault));
  EXPECT_EQ(parse("design:128:4096:45"), d);  // the default budget; deterministic
  double elements = 0, today = 0;
  int odd = 0, two = 0, four = 0, eight = 0, wide = 0, tall = 0, squares = 0, l2_below = 0, l2_above = 0;
  int aligned_odd = 0, aligned_two = 0, near_power = 0, mixed = 0, mixed_large = 0;
  for (const auto& s : d) {
    EXPECT_EQ(s.rank, 2);
    EXPECT_GE(std::min(s.x(), s.y()), 128);
    EXPECT_LE(std::max(s.x(), s.y()), 4096);
    EXPECT_LE(std::max(s.x(), s.y()), 16 * std::min(s.x(), s.y()));
    elements += s.elements();
    odd += s.x() % 2 == 1 && s.y() % 2 == 1;
    two += s.x() % 4 == 2;
    four += s.x() % 8 == 4;
    eight += s.x() % 16 == 8;
    wide += s.x() > s.y();
    tall += s.x() < s.y();
    squares += s.x() == s.y() && s.x() % 128 == 0;
    const auto lo = std::min(s.x(), s.y()), hi = std::max(s.x(), s.y());
    aligned_odd += hi % 128 == 0 && lo % 2 == 1;
    aligned_two += hi % 128 == 0 && lo % 4 == 2;
    // the extents in different classes of the vector widths (gcd with 4), above L2
    mixed += std::gcd(s.x(), std::int64_t{4}) != std::gcd(s.y(), std::int64_t{4});
    mixed_large +=
        std::gcd(s.x(), std::int64_t{4}) != std::gcd(s.y(), std::int64_t{4}) && 8 * s.elements() > 60.0 * (1 << 20);
    for (std::int64_t p = 256; p <= 4096; p *= 2)
      near_power += s.x() == s.y() && s.x() % 2 == 1 && std::abs(s.x() - p) <= 3;
    const double bytes = 8 * s.elements(), l2 = 60.0 * (1 << 20);
    l2_below += bytes < l2 && bytes > 0.8 * l2;
    l2_above += bytes > l2 && bytes < 1.2 * l2;
  }
  for (const auto& s : parse("128:4096")) today += s.full(2).elements();
  EXPECT_GE(odd, 12);
  EXPECT_EQ(near_power, 5);   // 253, 515, 1021, 2051, 4093
  EXPECT_EQ(aligned_odd, 2);  // 1408x945 both ways
  EXPECT_EQ(aligned_two, 2);  // 2432x610 both ways
  EXPECT_EQ(two, 7);          // 3 squares, 610x2432, 2274x1984, 3442x3008 and 2530x2895
  EXPECT_EQ(four, 0);
  EXPECT_EQ(eight, 0);
  EXPECT_EQ(mixed, 14);       // 1408x945, 2432x610 and the 5 mixed near-squares, both ways
  EXPECT_EQ(mixed_large, 4);  // 3695x3232 and 3442x3008 both ways: odd and 2 mod 4 by 16m above L2
  EXPECT_EQ(wide, 11);
  EXPECT_EQ(tall, 11);
  EXPECT_GE(squares, 10);
  EXPECT_GE(l2_below, 1);
  EXPECT_GE(l2_above, 1);
  EXPECT_LT(elements, today);  // fewer elements in all than the 32 squares of 128:4096
  for (std::size_t i = 1; i < d.size(); ++i) EXPECT_LE(d[i - 1].elements(), d[i].elements());
}

TEST(Sizes, DesignRefusesWhatItCannotCover) {
  EXPECT_THROW(parse("design:16:4096"), tune::InputError);
  EXPECT_THROW(parse("design:1024:2048"), tune::InputError);
  EXPECT_THROW(parse("design:128:4096:10"), tune::InputError);
  EXPECT_THROW(parse("design:128"), tune::InputError);
  EXPECT_THROW(parse("design:128:4096:32"), tune::InputError);
  EXPECT_THROW(parse("design:128:4096:40:1"), tune::InputError);
  EXPECT_THROW(parse("design:128:4096:36"), tune::InputError);
  EXPECT_LT(parse("design:128:4096:37").size() + 6, parse("design:128:4096:45").size());
  EXPECT_EQ(parse("100,design:128:4096").front().label(), "100");
}

// Host-side tests of element generation (seeded fills, half conversion, poison) and of the
// verification logic.
#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <cstring>
#include <limits>
#include <set>

#include "run/run.h"

namespace tune::run {
namespace {

template <class T>
std::vector<T> as(const std::vector<std::byte>& bytes) {
  std::vector<T> out(bytes.size() / sizeof(T));
  std::memcpy(out.data(), bytes.data(), out.size() * sizeof(T));
  return out;
}

template <class T>
std::vector<std::byte> bytes_of(const std::vector<T>& v) {
  std::vector<std::byte> out(v.size() * sizeof(T));
  std::memcpy(out.data(), v.data(), out.size());
  return out;
}

const DType kFloat{Scalar::float32, 1};

TEST(Half, ConvertsKnownValuesAndRoundTripsEveryHalf) {
  EXPECT_EQ(float_to_half(1.0f), 0x3C00);
  EXPECT_EQ(float_to_half(-2.0f), 0xC000);
  EXPECT_EQ(float_to_half(65504.0f), 0x7BFF);  // largest half
  EXPECT_EQ(float_to_half(65520.0f), 0x7C00);  // rounds up to infinity
  EXPECT_EQ(float_to_half(65519.0f), 0x7BFF);
  EXPECT_EQ(float_to_half(0x1.0p-24f), 0x0001);  // smallest subnormal
  EXPECT_EQ(float_to_half(0x1.0p-26f), 0x0000);  // below half of it: zero
  EXPECT_EQ(float_to_half(1.0f / 3.0f), 0x3555);
  EXPECT_EQ(float_to_half(1.0f + 0x1.0p-11f), 0x3C00);      // tie to even (down)
  EXPECT_EQ(float_to_half(1.0f + 3 * 0x1.0p-11f), 0x3C02);  // tie to even (up)
  EXPECT_TRUE(std::isnan(half_to_float(float_to_half(NAN))));
  for (std::uint32_t h = 0; h < 0x10000; ++h) {
    const auto bits = static_cast<std::uint16_t>(h);
    const float f = half_to_float(bits);
    if (std::isnan(f)) continue;
    ASSERT_EQ(float_to_half(f), bits) << "half 0x" << std::hex << h;
  }
}

TEST(Fill, RandomDataIsDeterministicAndInRange) {
  const std::vector<std::byte> a = random_data(kFloat, 100000, 42, 2.0);
  EXPECT_EQ(a, random_data(kFloat, 100000, 42, 2.0));
  EXPECT_NE(a, random_data(kFloat, 100000, 43, 2.0));
  const std::vector<float> f = as<float>(a);
  double sum = 0;
  for (float v : f) {
    ASSERT_GE(v, 0.0f);
    ASSERT_LT(v, 2.0f);
    sum += v;
  }
  EXPECT_NEAR(sum / f.size(), 1.0, 0.02);  // uniform on [0, 2)
  // The same seed gives the same stream regardless of the length asked for.
  const std::vector<float> prefix = as<float>(random_data(kFloat, 10, 42, 2.0));
  EXPECT_TRUE(std::equal(prefix.begin(), prefix.end(), f.begin()));

  const std::vector<std::int32_t> ints = as<std::int32_t>(random_data(parse_dtype("int32"), 10000, 7, 10.0));
  std::vector<int> seen(10, 0);
  for (std::int32_t v : ints) {
    ASSERT_GE(v, 0);
    ASSERT_LT(v, 10);
    ++seen[static_cast<std::size_t>(v)];
  }
  for (int c : seen) EXPECT_GT(c, 800);  // every value of [0, 10) occurs about 1000 times
  const std::vector<std::uint8_t> bools = as<std::uint8_t>(random_data(parse_dtype("bool"), 1000, 7, 1.0));
  for (std::uint8_t b : bools) ASSERT_LE(b, 1);
  // scale < 1 for an integer type: the whole non-negative range.
  const std::vector<std::int8_t> wide = as<std::int8_t>(random_data(parse_dtype("int8"), 1000, 9, 0.0));
  int high = 0;
  for (std::int8_t v : wide) {
    ASSERT_GE(v, 0);
    high += v >= 64 ? 1 : 0;
  }
  EXPECT_GT(high, 400);
  // Vector types draw every lane.
  const std::vector<float> lanes = as<float>(random_data(parse_dtype("float4"), 8, 1, 1.0));
  EXPECT_EQ(lanes.size(), 32u);
  EXPECT_EQ(std::set<float>(lanes.begin(), lanes.end()).size(), 32u);
}

TEST(Fill, ArgumentsGetIndependentSeededStreams) {
  ArgSpec s;
  s.name = "x";
  s.count = 256;
  s.fill = FillKind::random;
  s.fill_value = 1.0;
  EXPECT_EQ(initial_data(s, 0, 5), initial_data(s, 0, 5));
  EXPECT_NE(initial_data(s, 0, 5), initial_data(s, 1, 5));
  EXPECT_NE(initial_data(s, 0, 5), initial_data(s, 0, 6));
  EXPECT_NE(derive_seed(5, 0), derive_seed(5, 1));
  s.fill = FillKind::constant;
  s.fill_value = 1.5;
  for (float v : as<float>(initial_data(s, 3, 5))) ASSERT_EQ(v, 1.5f);
  s.scalar = true;
  EXPECT_THROW(initial_data(s, 0, 5), InputError);
}

TEST(Fill, ConstantDataAndPoisonPattern) {
  const std::vector<std::int16_t> c = as<std::int16_t>(constant_data(parse_dtype("int16"), 5, -3));
  EXPECT_EQ(c, std::vector<std::int16_t>(5, -3));
  const std::vector<double> d = as<double>(constant_data(parse_dtype("double2"), 2, 0.25));
  EXPECT_EQ(d, std::vector<double>(4, 0.25));
  // Poison is all ones: a NaN for every floating type, distinct from the GPU's canonical NaN.
  EXPECT_TRUE(std::isnan(std::bit_cast<float>(0xFFFFFFFFu)));
  EXPECT_TRUE(std::isnan(std::bit_cast<double>(~std::uint64_t{0})));
  EXPECT_TRUE(std::isnan(half_to_float(0xFFFF)));
  std::vector<std::byte> p(8, std::byte{kPoisonByte});
  EXPECT_TRUE(is_poison(kFloat, p.data()));
  p[5] = std::byte{0};
  EXPECT_TRUE(is_poison(kFloat, p.data()));
  EXPECT_FALSE(is_poison(kFloat, p.data() + 4));
  const float canonical_nan = std::bit_cast<float>(0x7FFFFFFFu);
  EXPECT_FALSE(is_poison(kFloat, reinterpret_cast<const std::byte*>(&canonical_nan)));
}

TEST(Compare, ExactAndToleranceWithFirstMismatchInTheMessage) {
  const std::vector<float> ref = {1.0f, 2.0f, 3.0f, 4.0f};
  std::vector<float> got = ref;
  Comparison c = compare<float>(kFloat, got, ref, Tolerance::exact(), "out");
  EXPECT_TRUE(c.ok);
  EXPECT_EQ(c.count, 4u);
  EXPECT_EQ(c.message, "'out': all 4 elements match (max |diff| 0)");

  got[2] = 3.0001f;
  c = compare<float>(kFloat, got, ref, Tolerance::exact(), "out");
  EXPECT_FALSE(c.ok);
  EXPECT_EQ(c.mismatches, 1u);
  EXPECT_EQ(c.first_mismatch, 2u);
  EXPECT_NE(c.message.find("'out': 1 of 4 elements differ (0 unwritten); first at element 2: got 3.0001"),
            std::string::npos)
      << c.message;
  EXPECT_NE(c.message.find("expected 3"), std::string::npos);

  EXPECT_TRUE(compare<float>(kFloat, got, ref, Tolerance::rel(1e-4), "out").ok);
  c = compare<float>(kFloat, got, ref, Tolerance::rel(1e-5), "out");
  EXPECT_FALSE(c.ok);
  EXPECT_NE(c.message.find("> allowed 3e-05"), std::string::npos) << c.message;
  EXPECT_NEAR(c.max_abs_error, 1e-4, 1e-6);
  EXPECT_TRUE(compare<float>(kFloat, got, ref, Tolerance{0, 2e-4}, "out").ok);  // absolute
}

TEST(Compare, UnwrittenElementsNaNAndVectorLanes) {
  const std::vector<float> ref = {1.0f, NAN, 3.0f, 4.0f, 5.0f};
  std::vector<float> got = ref;
  EXPECT_TRUE(compare<float>(kFloat, got, ref, Tolerance::exact()).ok);  // NaN against NaN passes
  got[1] = 0.0f;
  EXPECT_FALSE(compare<float>(kFloat, got, ref, Tolerance::rel(1.0)).ok);  // a number against NaN fails
  got[1] = NAN;
  const float poison = std::bit_cast<float>(0xFFFFFFFFu);
  got[3] = poison;
  got[4] = poison;
  Comparison c = compare<float>(kFloat, got, ref, Tolerance::rel(1e-3), "y");
  EXPECT_FALSE(c.ok);
  EXPECT_EQ(c.mismatches, 2u);
  EXPECT_EQ(c.unwritten, 2u);
  EXPECT_EQ(c.first_mismatch, 3u);
  EXPECT_NE(c.message.find("first at element 3: unwritten (still poisoned), expected 4"), std::string::npos)
      << c.message;
  EXPECT_EQ(count_unwritten(kFloat, std::as_bytes(std::span<const float>(got))), 2u);

  const DType f4 = parse_dtype("float4");
  const std::vector<float> vref = {0, 1, 2, 3, 4, 5, 6, 7};
  std::vector<float> vgot = vref;
  vgot[6] = 60;
  c = compare<float>(f4, vgot, vref, Tolerance::exact(), "v");
  EXPECT_EQ(c.count, 2u);
  EXPECT_EQ(c.first_mismatch, 1u);
  EXPECT_NE(c.message.find("element 1 lane 2: got 60, expected 6"), std::string::npos) << c.message;
}

TEST(Compare, IntegersAreExactAndSizesMustAgree) {
  const DType i64 = parse_dtype("int64");
  const std::vector<std::int64_t> ref = {(std::int64_t{1} << 60) + 1, -5};
  std::vector<std::int64_t> got = {(std::int64_t{1} << 60), -5};  // equal as doubles, not as integers
  Comparison c = compare<std::int64_t>(i64, got, ref, Tolerance::exact(), "idx");
  EXPECT_FALSE(c.ok);
  EXPECT_EQ(c.first_mismatch, 0u);
  got[0] = ref[0];
  EXPECT_TRUE(compare<std::int64_t>(i64, got, ref, Tolerance::exact(), "idx").ok);
  got.push_back(0);
  EXPECT_THROW(compare<std::int64_t>(i64, got, ref, Tolerance::exact(), "idx"), Error);
  const std::vector<std::byte> odd(6);
  EXPECT_THROW(count_unwritten(kFloat, odd), Error);
}

}  // namespace
}  // namespace tune::run

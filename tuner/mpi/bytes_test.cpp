// The rank messages' encoding (mpi/bytes.h): what goes in comes out, bit for bit, and a short or
// lying message is an error, never a read past its end.
#include "mpi/bytes.h"

#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <cstdint>
#include <limits>

namespace tune::mpi {
namespace {

TEST(Bytes, RoundTripsNumbersStringsAndDoublesBitForBit) {
  const std::vector<double> v{0.1, -0.0, std::numeric_limits<double>::quiet_NaN(), 1e308, 5e-324};
  const std::string blob("a\0b\xff", 4);
  const std::string m = Writer().u64(42).str(blob).f64s(v).f64(1.0 / 3.0).str("").take();
  Reader in(m);
  EXPECT_EQ(in.u64(), 42u);
  EXPECT_EQ(in.str(), blob);
  const auto back = in.f64s();
  ASSERT_EQ(back.size(), v.size());
  for (std::size_t i = 0; i < v.size(); ++i)
    EXPECT_EQ(std::bit_cast<std::uint64_t>(back[i]), std::bit_cast<std::uint64_t>(v[i])) << i;
  EXPECT_EQ(in.f64(), 1.0 / 3.0);
  EXPECT_EQ(in.str(), "");
  EXPECT_TRUE(in.done());
}

TEST(Bytes, AShortOrLyingMessageIsAnError) {
  const std::string m = Writer().str("hello").take();
  Reader cut(std::string_view(m).substr(0, m.size() - 1));
  EXPECT_THROW(cut.str(), Error);
  const std::string lying = Writer().u64(std::numeric_limits<std::uint64_t>::max()).take();
  Reader a(lying), b(lying);
  EXPECT_THROW(a.str(), Error);
  EXPECT_THROW(b.f64s(), Error);
  Reader empty(std::string_view{});
  EXPECT_THROW(empty.u64(), Error);
}

}  // namespace
}  // namespace tune::mpi

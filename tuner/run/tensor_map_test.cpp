// The host-side rules of TMA tensor maps (run/tensor_map.h), without a GPU; the encoding itself
// is tested on the GPU (hopper_gpu_test.cpp).
#include "run/tensor_map.h"

#include <gtest/gtest.h>

#include <vector>

#include "common/error.h"
#include "run/device.h"

namespace tune::run {
namespace {

TensorMapSpec tile(std::uint64_t cols, std::uint64_t rows, std::uint32_t bx, std::uint32_t by, unsigned swizzle = 0) {
  TensorMapSpec s;
  s.dims = {cols, rows};
  s.box = {bx, by};
  s.swizzle = swizzle;
  return s;
}

const DType kFloat = parse_dtype("float");

TEST(TensorMapCheck, AcceptsWhatTheDriverEncodes) {
  EXPECT_EQ(check(tile(1000, 777, 32, 128, 128), kFloat, 1000 * 777), "");
  EXPECT_EQ(check(tile(4096, 4096, 64, 256), kFloat, 4096 * 4096), "");
  EXPECT_EQ(check(tile(1024, 8, 8, 32, 32), kFloat, 1024 * 8), "");
  TensorMapSpec three = tile(64, 64, 16, 16);
  three.dims.push_back(3);
  three.box.push_back(1);
  EXPECT_EQ(check(three, parse_dtype("double"), 64 * 64 * 3), "");
}

TEST(TensorMapCheck, RefusesWhatTheDriverWouldWithTheReason) {
  // a row of 1001 floats is 4004 bytes, not a multiple of 16
  EXPECT_NE(check(tile(1001, 64, 32, 32), kFloat, 1001 * 64).find("not a multiple of 16"), std::string::npos);
  EXPECT_NE(check(tile(1024, 64, 32, 300), kFloat, 1024 * 64).find("box[1] is 300 (1 to 256)"), std::string::npos);
  EXPECT_NE(check(tile(1024, 64, 2, 32), kFloat, 1024 * 64).find("inner extent is 8 bytes"), std::string::npos);
  EXPECT_NE(check(tile(1024, 64, 64, 32, 128), kFloat, 1024 * 64).find("exceeds the 128-byte swizzle"),
            std::string::npos);
  EXPECT_NE(check(tile(1024, 64, 32, 32, 96), kFloat, 1024 * 64).find("swizzle of 96 bytes"), std::string::npos);
  EXPECT_NE(check(tile(1024, 64, 32, 32), kFloat, 1024 * 63).find("the buffer has"), std::string::npos);
  EXPECT_NE(check(tile(1024, 64, 32, 32), parse_dtype("float4"), 1024 * 64).find("no TMA data type"),
            std::string::npos);
  TensorMapSpec six = tile(64, 64, 16, 16);
  for (int i = 0; i < 4; ++i) six.dims.push_back(1), six.box.push_back(1);
  EXPECT_NE(check(six, kFloat, 64 * 64).find("rank 6"), std::string::npos);
}

TEST(TensorMapCheck, EncodeRefusesABadMapBeforeAskingTheDriver) {
  EXPECT_THROW(encode(tile(1001, 64, 32, 32), kFloat, 1001 * 64, nullptr), InputError);
}

TEST(TensorMapCheck, WithoutADriverEncodeSaysSo) {
  if (gpu_available()) GTEST_SKIP() << "a driver is present: hopper_gpu_test.cpp encodes";
  std::vector<float> host(1024 * 64);  // any address: the driver is asked for before it is read
  EXPECT_THROW(encode(tile(1024, 64, 32, 32), kFloat, host.size(), host.data()), UnavailableError);
}

}  // namespace
}  // namespace tune::run

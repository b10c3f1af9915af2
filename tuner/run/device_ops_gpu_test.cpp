// GPU tests of the device-side fill and verification (device_ops.h, DeviceCheck): the device
// generates the host generator's bytes for every type, and the device comparison finds a planted
// wrong value, a NaN and an unwritten element for every type. Without a GPU each test skips.
#include <gtest/gtest.h>

#include <cstring>

#include "run/device_ops.h"
#include "run/run.h"

namespace tune::run {
namespace {

class DeviceOps : public ::testing::Test {
 protected:
  void SetUp() override {
    if (!gpu_available()) GTEST_SKIP() << "no GPU: " << gpu_unavailable_reason();
    if (!session_) session_ = std::make_unique<Session>(0);
  }
  static std::unique_ptr<Session> session_;
};
std::unique_ptr<Session> DeviceOps::session_;

const char* kTypes[] = {"bool",   "int8", "uint8", "int16",  "uint16", "int32",   "uint32", "int64",
                        "uint64", "half", "float", "double", "float4", "double2", "half8"};

TEST_F(DeviceOps, RandomAndConstantFillsEqualTheHostGenerator) {
  for (const char* name : kTypes)
    for (double scale : {0.0, 1.0, 7.0, 1000.0, 3.5}) {
      SCOPED_TRACE(std::string(name) + " scale " + std::to_string(scale));
      const DType dt = parse_dtype(name);
      const std::size_t count = 100003;  // odd: the grid-stride loops' tails
      DeviceBuffer b(count * dt.size());
      b.fill_random(dt, 0x1234 + static_cast<std::uint64_t>(scale), scale);
      EXPECT_EQ(b.download(), random_data(dt, count, 0x1234 + static_cast<std::uint64_t>(scale), scale));
    }
  for (const char* name : kTypes) {
    const DType dt = parse_dtype(name);
    DeviceBuffer b(1001 * dt.size());
    b.fill_constant(dt, 3.0);
    EXPECT_EQ(b.download(), constant_data(dt, 1001, 3.0)) << name;
  }
}

TEST_F(DeviceOps, ArgSetGeneratesInitialDataOnTheDevice) {
  ArgSet args(*session_,
              {ArgSpec{"a", "float", false, 1 << 20, FillKind::random, 2.0},
               ArgSpec{"b", "int32", false, 4097, FillKind::random, 100.0},
               ArgSpec{"c", "double", false, 333, FillKind::constant, 0.25, true}},
              42);
  for (std::size_t i = 0; i < args.size(); ++i)
    EXPECT_EQ(args.buffer(i).download(), initial_data(args.spec(i), i, 42)) << args.spec(i).name;
  args.poison_outputs();
  args.refill();
  EXPECT_EQ(args.buffer(2).download(), initial_data(args.spec(2), 2, 42));
}

// Given contents (tune --capture's inputs) reach the device as they are, and again after a
// refill; the device fill must not replace them with the fill's zeros.
TEST_F(DeviceOps, GivenDataIsUploadedAndRefilled) {
  std::vector<std::byte> bytes(4097 * 4);
  for (std::size_t k = 0; k < bytes.size(); ++k) bytes[k] = std::byte(k * 7 + 3);
  ArgSpec given{"a", "float", false, 4097, FillKind::constant, 0.0, true};
  given.data = std::make_shared<const std::vector<std::byte>>(bytes);
  ArgSet args(*session_, {given}, 42);
  EXPECT_EQ(args.buffer(0).download(), bytes);
  args.poison_outputs();
  args.refill();
  EXPECT_EQ(args.buffer(0).download(), bytes);
}

TEST_F(DeviceOps, TheComparisonFindsWhatTheHostComparisonFinds) {
  for (const char* name : kTypes) {
    SCOPED_TRACE(name);
    const DType dt = parse_dtype(name);
    const std::size_t n = 50001;
    DeviceBuffer ref(n * dt.size()), out(n * dt.size());
    ref.fill_random(dt, 7, dt.is_floating() ? 1.0 : 50.0);
    check(cudaMemcpy(out.data(), ref.data(), ref.bytes(), cudaMemcpyDeviceToDevice), "copy");
    EXPECT_TRUE(compare(dt, out, ref, Tolerance::exact(), "out").ok);
    std::vector<std::byte> host = out.download();
    // a wrong value at 123, an unwritten element at 40000, and (floats) a NaN at 777
    host[123 * dt.size()] ^= std::byte{0x01};
    std::memset(host.data() + 40000 * dt.size(), 0xFF, dt.size());
    const bool has_nan = dt.is_floating();
    if (has_nan) {
      if (dt.scalar == Scalar::half) std::memcpy(host.data() + 777 * dt.size(), "\x01\x7E", 2);
      if (dt.scalar == Scalar::float32) std::memcpy(host.data() + 777 * dt.size(), "\x01\x00\xC0\x7F", 4);
      if (dt.scalar == Scalar::float64)
        std::memcpy(host.data() + 777 * dt.size(), "\x01\x00\x00\x00\x00\x00\xF8\x7F", 8);
    }
    out.upload(host);
    const Comparison dev = compare(dt, out, ref, Tolerance::exact(), "out");
    const Comparison cpu = compare(dt, std::span<const std::byte>(host), std::span<const std::byte>(ref.download()),
                                   Tolerance::exact(), "out");
    EXPECT_FALSE(dev.ok);
    EXPECT_EQ(dev.mismatches, cpu.mismatches);
    EXPECT_EQ(dev.unwritten, 1u);
    EXPECT_EQ(dev.unwritten, cpu.unwritten);
    EXPECT_EQ(dev.first_mismatch, 123u);
    EXPECT_EQ(dev.message, cpu.message);
    EXPECT_EQ(count_unwritten(dt, out), 1u);
  }
}

TEST_F(DeviceOps, ToleranceAndTransposeChecks) {
  const DType f{Scalar::float32, 1};
  DeviceBuffer a(1000 * 4), b(1000 * 4);
  a.fill_constant(f, 1.0);
  b.fill_constant(f, 1.0005);
  EXPECT_FALSE(compare(f, a, b, Tolerance::exact()).ok);
  EXPECT_TRUE(compare(f, a, b, Tolerance::rel(1e-3)).ok);
  const Ceiling t = cublas_sgeam_transpose(*session_, 1000, 3000);
  EXPECT_TRUE(t.ok()) << t.check;
  EXPECT_NE(t.check.find("on the device"), std::string::npos) << t.check;
}

}  // namespace
}  // namespace tune::run

// The compute ceilings (compute_ceilings.h). Their kernels compile with NVRTC for sm_90 on any
// machine (CI has no GPU); the measurements themselves skip without a GPU.
#include "run/compute_ceilings.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <limits>
#include <memory>

#include "run/run.h"

namespace tune::run {
namespace {

TEST(CeilingKernels, CompileForSm90WithoutSpillsAtFullOccupancy) {
  for (const auto& r : {fp32_peak_request("sm_90"), row_argmax_request("sm_90")}) {
    SCOPED_TRACE(r.kernel_name);
    const compile::CompileResult res = compile::compile(r);
    ASSERT_TRUE(res.ok()) << res.log;
    EXPECT_EQ(res.cubin.substr(0, 4), std::string("\x7f"
                                                  "ELF",
                                                  4));
    ASSERT_TRUE(res.resources.parsed) << res.log;
    EXPECT_EQ(res.resources.spill_stores, 0) << res.log;
    EXPECT_EQ(res.resources.stack_frame, 0) << res.log;
    // 2048 resident threads per SM need at most 32 registers each: the FMA kernel's
    // kFmaBlocksPerSm blocks of kFmaBlock threads must all be resident to fill every sub-partition.
    EXPECT_LE(res.resources.registers, 65536 / (kFmaBlocksPerSm * kFmaBlock)) << res.log;
  }
  static_assert(kFmaBlocksPerSm * kFmaBlock == 2048);
}

class ComputeCeilings : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    if (!gpu_available()) return;
    session_ = std::make_unique<Session>(0);
    kernels_ = std::make_unique<CeilingKernels>(*session_);
  }
  static void TearDownTestSuite() {
    kernels_.reset();
    session_.reset();
  }
  void SetUp() override {
    if (!gpu_available()) GTEST_SKIP() << "no GPU: " << gpu_unavailable_reason();
  }
  static void print(const Ceiling& c) {
    std::printf("%s: median %.4f ms = %.0f %s (%zu samples; %s)\n", c.name.c_str(), c.time_ms, c.value, c.unit.c_str(),
                c.timing.samples_ms.size(), c.check.c_str());
  }
  static std::unique_ptr<Session> session_;
  static std::unique_ptr<CeilingKernels> kernels_;
};
std::unique_ptr<Session> ComputeCeilings::session_;
std::unique_ptr<CeilingKernels> ComputeCeilings::kernels_;

TEST_F(ComputeCeilings, Fp32PeakIsVerifiedAndNearTheClockBound) {
  const Ceiling c = fp32_peak(*session_, *kernels_);
  print(c);
  ASSERT_TRUE(c.ok()) << c.timing.status.message << " " << c.check;
  EXPECT_EQ(c.unit, "GFLOP/s");
  int khz = 0;
  ASSERT_EQ(cudaDeviceGetAttribute(&khz, cudaDevAttrClockRate, 0), cudaSuccess);
  const DeviceInfo& d = session_->device();
  // 128 FP32 lanes per SM from sm_86 on (64 on sm_80), one FMA = 2 flops per lane and cycle.
  const int lanes = d.cc_major * 10 + d.cc_minor == 80 ? 64 : 128;
  const double bound = d.sm_count * lanes * 2.0 * khz * 1e3 / 1e9;
  std::printf("clock bound %.0f GFLOP/s (%d SMs x %d lanes x 2 x %.3f GHz): measured %.3f of it\n", bound, d.sm_count,
              lanes, khz / 1e6, c.value / bound);
  EXPECT_GT(c.value, 0.75 * bound);
  EXPECT_LT(c.value, 1.05 * bound);
}

TEST_F(ComputeCeilings, SgemmArgmaxIsVerifiedAndSlowerThanSgemmAlone) {
  for (auto [n2, n1, dim] : {std::array<std::size_t, 3>{4096, 4096, 128}, {1001, 777, 64}, {16384, 16384, 128}}) {
    const Ceiling c = cublas_sgemm_argmax(*session_, *kernels_, n2, n1, dim);
    print(c);
    ASSERT_TRUE(c.ok()) << c.name << ": " << c.timing.status.message << " " << c.check;
    const Ceiling gemm = cublas_sgemm(*session_, n2, n1, dim);
    print(gemm);
    ASSERT_TRUE(gemm.ok()) << gemm.check;
    if (n2 >= 4096) {
      EXPECT_GT(c.time_ms, gemm.time_ms);  // the argmax reads the whole score matrix
    }
  }
}

// The tensor-core GEMM ceilings: TF32 is verified (within its looser bound) and faster than the
// pedantic FP32 Sgemm; the emulated FP32 is verified at FP32's bound where the library runs it,
// else its status carries cuBLAS's reason.
TEST_F(ComputeCeilings, TensorCoreGemmsAreVerifiedAndTf32BeatsPedanticSgemm) {
  const Ceiling fp32 = cublas_sgemm(*session_, 4096, 4096, 4096);
  print(fp32);
  ASSERT_TRUE(fp32.ok()) << fp32.check;
  const Ceiling tf32 = cublas_gemm(*session_, GemmMath::tf32, 4096, 4096, 4096);
  print(tf32);
  ASSERT_TRUE(tf32.ok()) << tf32.timing.status.message << " " << tf32.check;
  EXPECT_EQ(tf32.name, "cublas_gemm_tf32 4096x4096x4096");
  EXPECT_LT(tf32.time_ms, fp32.time_ms / 2);
  const Ceiling emulated = cublas_gemm(*session_, GemmMath::fp32_emulated_bf16x9, 4096, 4096, 4096);
  print(emulated);
  if (emulated.timing.ok())
    EXPECT_TRUE(emulated.verified) << emulated.check;
  else
    EXPECT_NE(emulated.timing.status.message.find("cublas"), std::string::npos) << emulated.timing.status.message;
}

// The argmax kernel alone on crafted rows: ties go to the lowest index, NaN never wins, rows of a
// width that is not a multiple of 4 take the scalar path.
TEST_F(ComputeCeilings, RowArgmaxTiesNaNAndOddWidths) {
  LoadedKernel& k = kernels_->argmax();
  const float nan = std::numeric_limits<float>::quiet_NaN(), inf = std::numeric_limits<float>::infinity();
  for (int cols : {64, 67, 1}) {
    SCOPED_TRACE(cols);
    const int rows = 9;
    std::vector<float> m(static_cast<std::size_t>(rows) * cols);
    for (std::size_t i = 0; i < m.size(); ++i) m[i] = static_cast<float>((i * 37) % 101) / 100.0f;
    std::vector<int> want(rows);
    for (int r = 0; r < rows; ++r) {
      float* row = m.data() + static_cast<std::size_t>(r) * cols;
      if (r == 1) row[cols - 1] = 5.0f, row[cols / 2] = 5.0f, row[cols / 3] = 5.0f;  // three-way tie
      if (r == 2) row[0] = nan, row[cols - 1] = 7.0f;
      if (r == 3) row[cols / 2] = inf;
      if (r == 4)
        for (int j = 0; j < cols; ++j) row[j] = -1.0f;  // all equal: index 0
      int best = -1;
      for (int j = 0; j < cols; ++j)
        if (!std::isnan(row[j]) && (best < 0 || row[j] > row[best])) best = j;
      want[r] = best;
    }
    DeviceBuffer dm(m.size() * sizeof(float)), db(rows * sizeof(float)), di(rows * sizeof(int));
    dm.upload<float>(m);
    db.poison();
    di.poison();
    void *pm = dm.data(), *pb = db.data(), *pi = di.data();
    int nrows = rows, ncols = cols;
    void* argv[] = {&pm, &nrows, &ncols, &pb, &pi};
    ASSERT_EQ(cudaLaunchKernel(k.handle(), dim3(2), dim3(256), argv, 0, nullptr), cudaSuccess);
    const std::vector<int> got = di.download_as<int>();
    const std::vector<float> score = db.download_as<float>();
    for (int r = 0; r < rows; ++r) {
      EXPECT_EQ(got[r], want[r]) << "row " << r;
      EXPECT_EQ(score[r], m[static_cast<std::size_t>(r) * cols + want[r]]) << "row " << r;
    }
  }
}

}  // namespace
}  // namespace tune::run

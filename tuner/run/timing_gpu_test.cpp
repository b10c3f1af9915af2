// GPU tests of the timing method (timing.h): a kernel of known duration measures that duration,
// host jitter between the launches stays out of the samples (the stream-blocking kernel), short
// kernels are batched, and interleaved measurement of two identical kernels finds them equal.
// Without a GPU each test skips with the reason.
#include <gtest/gtest.h>

#include <chrono>
#include <cmath>
#include <cstdio>
#include <thread>

#include "compile/compile.h"
#include "run/run.h"

namespace tune::run {
namespace {

constexpr const char* kSource = R"(
extern "C" __global__ void spin(unsigned long long ns) {
  unsigned long long start, now;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(start));
  do { asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(now)); } while (now - start < ns);
}
)";

class TimingGpu : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    if (!gpu_available()) return;
    session_ = std::make_unique<Session>(0);
    compile::CompileRequest r;
    r.source = kSource;
    r.source_name = "timing_gpu_test.cu";
    r.kernel_name = "spin";
    r.arch = session_->device().arch;
    auto res = compile::compile(r);
    ASSERT_TRUE(res.ok()) << res.log;
    spin_ = std::make_unique<LoadedKernel>(*session_, std::vector<char>(res.cubin.begin(), res.cubin.end()), "spin");
  }
  static void TearDownTestSuite() {
    spin_.reset();
    session_.reset();
  }
  void SetUp() override {
    if (!gpu_available()) GTEST_SKIP() << "no GPU: " << gpu_unavailable_reason();
  }
  // A launch of the spin kernel for `us` microseconds, optionally sleeping on the host first.
  static LaunchFn spin(double us, double host_sleep_us = 0) {
    return [us, host_sleep_us] {
      if (host_sleep_us > 0) std::this_thread::sleep_for(std::chrono::duration<double, std::micro>(host_sleep_us));
      unsigned long long ns = static_cast<unsigned long long>(us * 1000);
      void* args[] = {&ns};
      const cudaError_t c = cudaLaunchKernel(spin_->handle(), dim3(1), dim3(1), args, 0, nullptr);
      return c == cudaSuccess ? LaunchStatus{} : classify(c, "spin");
    };
  }
  static std::unique_ptr<Session> session_;
  static std::unique_ptr<LoadedKernel> spin_;
};
std::unique_ptr<Session> TimingGpu::session_;
std::unique_ptr<LoadedKernel> TimingGpu::spin_;

TEST_F(TimingGpu, AKernelOfKnownDurationMeasuresThatDuration) {
  for (double us : {50.0, 200.0}) {
    const Timing t = measure(*session_, spin(us));
    ASSERT_TRUE(t.ok()) << t.status.message;
    std::printf("spin %.0f us: mean %.2f us +- %.2f (N %d, %zu samples, SM %u..%u MHz, retaken %d)\n", us,
                1000 * t.summary.mean, 1000 * t.summary.half_width, t.launches_per_sample, t.samples_ms.size(),
                t.sm_mhz_min, t.sm_mhz_max, t.retaken);
    EXPECT_GT(1000 * t.summary.mean, us);             // it spins at least that long
    EXPECT_LT(1000 * t.summary.mean, us * 1.05 + 2);  // plus the launch gap, a microsecond or two
    EXPECT_LE(t.summary.half_width, 0.01 * t.summary.mean * 1.0001 + 1e-6);
  }
}

TEST_F(TimingGpu, ShortKernelsAreBatched) {
  const Timing t = measure(*session_, spin(2.0));
  ASSERT_TRUE(t.ok()) << t.status.message;
  std::printf("spin 2 us: mean %.3f us, N %d\n", 1000 * t.summary.mean, t.launches_per_sample);
  EXPECT_GT(t.launches_per_sample, 1);  // a 2..4 us launch: batched to about min_batch_ms
  EXPECT_GE(t.launches_per_sample * t.summary.mean, 0.5 * TimingOptions{}.min_batch_ms);
  // every sample is N launches; retaken rounds add launches, never samples
  EXPECT_GE(t.launches, static_cast<std::size_t>(t.launches_per_sample) * t.samples_ms.size());
  EXPECT_LT(1000 * t.summary.mean, 6.0);
}

TEST_F(TimingGpu, HostJitterBetweenLaunchesStaysOutOfTheSamples) {
  // 100 us of host sleep before every launch of a 10 us kernel: without the blocking kernel the GPU
  // would idle between launches and the batches would take ~110 us per launch
  const Timing quiet = measure(*session_, spin(10.0));
  const Timing jitter = measure(*session_, spin(10.0, 100.0));
  ASSERT_TRUE(quiet.ok() && jitter.ok()) << quiet.status.message << jitter.status.message;
  std::printf("spin 10 us: %.2f us quiet, %.2f us with 100 us of host sleep per launch\n", 1000 * quiet.summary.mean,
              1000 * jitter.summary.mean);
  EXPECT_NEAR(jitter.summary.mean, quiet.summary.mean, 0.05 * quiet.summary.mean);
}

TEST_F(TimingGpu, InterleavedIdenticalKernelsAreEqualAndDifferentOnesAreNot) {
  const std::vector<std::vector<LaunchFn>> fns = {{spin(20.0)}, {spin(20.0), spin(20.0)}, {spin(22.0)}};
  const auto t = measure_interleaved(*session_, fns, TimingOptions{}, 5, 2);  // 5 rounds x 2 samples
  ASSERT_EQ(t.size(), 3u);
  for (const auto& x : t) ASSERT_TRUE(x.ok()) << x.status.message;
  for (const auto& x : t) EXPECT_EQ(x.samples_ms.size(), 10u);
  const double a = t[0].summary.mean, b = t[1].summary.mean, c = t[2].summary.mean;
  std::printf("interleaved: %.3f %.3f %.3f us\n", 1000 * a, 1000 * b, 1000 * c);
  EXPECT_NEAR(a, b, 0.01 * a);
  EXPECT_GT(c, 1.05 * a);  // 10% longer spin: clearly apart
}

TEST_F(TimingGpu, ColdL2TimesOneLaunchPerSample) {
  TimingOptions o;
  o.flush_l2 = true;
  o.min_samples = 5;
  const Timing t = measure(*session_, spin(30.0), o);
  ASSERT_TRUE(t.ok()) << t.status.message;
  EXPECT_EQ(t.launches_per_sample, 1);
  EXPECT_GT(1000 * t.summary.mean, 30.0);
  EXPECT_LT(1000 * t.summary.mean, 30.0 * 1.05 + 4);  // the flush stays outside the events
}

}  // namespace
}  // namespace tune::run

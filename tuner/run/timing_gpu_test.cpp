// GPU tests of the timing method (timing.h): a kernel of known duration measures that duration,
// host jitter between the launches stays out of the samples (the stream-blocking kernel), short
// kernels are batched, and interleaved measurement of two identical kernels finds them equal.
// Without a GPU each test skips with the reason.
#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <span>
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
// The largest step of %globaltimer over 64 of its changes: how far past its target spin can end
// (the timer's update period depends on the machine: about 1 us on some, several on others).
extern "C" __global__ void tick(unsigned long long* step) {
  unsigned long long last, now, most = 0;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(last));
  for (int changes = 0; changes < 64;) {
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(now));
    if (now != last) {
      most = now - last > most ? now - last : most;
      last = now;
      ++changes;
    }
  }
  *step = most;
}
// A short memory-bound kernel of many blocks, as a small transpose is.
extern "C" __global__ void copy(const float* in, float* out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = in[i];
}
// A tiled transpose of an n x n matrix (32 x 8 threads, 32 x 32 tiles), as the transpose space's.
extern "C" __global__ void transpose(float* out, const float* in, int n) {
  __shared__ float tile[32][33];
  const int x = blockIdx.x * 32 + threadIdx.x, y = blockIdx.y * 32 + threadIdx.y;
  for (int j = 0; j < 32; j += 8)
    if (x < n && y + j < n) tile[threadIdx.y + j][threadIdx.x] = in[(y + j) * n + x];
  __syncthreads();
  const int tx = blockIdx.y * 32 + threadIdx.x, ty = blockIdx.x * 32 + threadIdx.y;
  for (int j = 0; j < 32; j += 8)
    if (tx < n && ty + j < n) out[(ty + j) * n + tx] = tile[threadIdx.x][threadIdx.y + j];
}
// The same with evict-first loads and stores (the transpose space's streaming = 1).
extern "C" __global__ void transpose_cs(float* out, const float* in, int n) {
  __shared__ float tile[32][33];
  const int x = blockIdx.x * 32 + threadIdx.x, y = blockIdx.y * 32 + threadIdx.y;
  for (int j = 0; j < 32; j += 8)
    if (x < n && y + j < n) tile[threadIdx.y + j][threadIdx.x] = __ldcs(&in[(y + j) * n + x]);
  __syncthreads();
  const int tx = blockIdx.y * 32 + threadIdx.x, ty = blockIdx.x * 32 + threadIdx.y;
  for (int j = 0; j < 32; j += 8)
    if (tx < n && ty + j < n) __stcs(&out[(ty + j) * n + tx], tile[threadIdx.x][threadIdx.y + j]);
}
// What an application's timing loop holds its stream with (examples/transpose/main.cu).
extern "C" __global__ void sleep_hold(long long ns) {
  long long t0 = 0, t = 0;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t0));
  do {
    __nanosleep(1000);
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
  } while (t - t0 < ns);
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
    const std::vector<char> cubin(res.cubin.begin(), res.cubin.end());
    spin_ = std::make_unique<LoadedKernel>(*session_, cubin, "spin");
    copy_ = std::make_unique<LoadedKernel>(*session_, cubin, "copy");
    transpose_ = std::make_unique<LoadedKernel>(*session_, cubin, "transpose");
    transpose_cs_ = std::make_unique<LoadedKernel>(*session_, cubin, "transpose_cs");
    sleep_hold_ = std::make_unique<LoadedKernel>(*session_, cubin, "sleep_hold");
    tick_ = std::make_unique<LoadedKernel>(*session_, cubin, "tick");
  }
  static void TearDownTestSuite() {
    spin_.reset();
    copy_.reset();
    transpose_.reset();
    transpose_cs_.reset();
    sleep_hold_.reset();
    tick_.reset();
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
  static std::unique_ptr<LoadedKernel> spin_, copy_, transpose_, transpose_cs_, sleep_hold_, tick_;
};
std::unique_ptr<Session> TimingGpu::session_;
std::unique_ptr<LoadedKernel> TimingGpu::spin_;
std::unique_ptr<LoadedKernel> TimingGpu::copy_;
std::unique_ptr<LoadedKernel> TimingGpu::sleep_hold_;
std::unique_ptr<LoadedKernel> TimingGpu::transpose_;
std::unique_ptr<LoadedKernel> TimingGpu::transpose_cs_;
std::unique_ptr<LoadedKernel> TimingGpu::tick_;

// Milliseconds per launch as an application times a kernel (examples/transpose/main.cu): a
// sleeping kernel holds the stream while k launches are queued between two events, then the host
// waits for them; the mean over `batches` batches after one warm-up batch. `after`: what is queued
// behind the stop event before the host waits (nothing, as the example does; another launch of the
// kernel; another event), to see whether work queued behind a batch moves its stop time.
enum class After { nothing, launch, event };
double application_loop_ms(const LaunchFn& launch, const LoadedKernel& hold, int batches, After after = After::nothing,
                           int fixed_k = 0) {
  Event start, stop, extra;
  auto batch = [&](int k) {
    long long ns = 200000 + 4000LL * k;
    void* args[] = {&ns};
    EXPECT_EQ(cudaLaunchKernel(hold.handle(), dim3(1), dim3(1), args, 0, nullptr), cudaSuccess);
    EXPECT_EQ(cudaEventRecord(start.get(), nullptr), cudaSuccess);
    for (int i = 0; i < k; ++i) EXPECT_TRUE(launch().ok());
    EXPECT_EQ(cudaEventRecord(stop.get(), nullptr), cudaSuccess);
    if (after == After::launch) {
      EXPECT_TRUE(launch().ok());
    } else if (after == After::event) {
      EXPECT_EQ(cudaEventRecord(extra.get(), nullptr), cudaSuccess);
    }
    EXPECT_EQ(cudaDeviceSynchronize(), cudaSuccess);
    float ms = 0;
    EXPECT_EQ(cudaEventElapsedTime(&ms, start.get(), stop.get()), cudaSuccess);
    return static_cast<double>(ms);
  };
  const double one = batch(1);
  const int k = fixed_k > 0 ? fixed_k : std::clamp(static_cast<int>(0.05 / std::max(one, 1e-4)) + 1, 1, 1000);
  (void)batch(k);
  double total = 0;
  for (int b = 0; b < batches; ++b) total += batch(k);
  return total / (static_cast<double>(batches) * k);
}

TEST_F(TimingGpu, AKernelOfKnownDurationMeasuresThatDuration) {
  // spin ends at the first timer update past its target: allow one update period beyond it
  DeviceBuffer step(sizeof(unsigned long long));
  void* step_ptr = step.data();
  void* step_args[] = {&step_ptr};
  ASSERT_EQ(cudaLaunchKernel(tick_->handle(), dim3(1), dim3(1), step_args, 0, nullptr), cudaSuccess);
  const double tick_us = static_cast<double>(step.download_as<unsigned long long>().at(0)) / 1000;
  std::printf("globaltimer step: %.3f us\n", tick_us);
  for (double us : {50.0, 200.0}) {
    const Timing t = measure(*session_, spin(us));
    ASSERT_TRUE(t.ok()) << t.status.message;
    std::printf("spin %.0f us: mean %.2f us +- %.2f (N %d, %zu samples, SM %u..%u MHz, retaken %d)\n", us,
                1000 * t.summary.mean, 1000 * t.summary.half_width, t.launches_per_sample, t.samples_ms.size(),
                t.sm_mhz_min, t.sm_mhz_max, t.retaken);
    EXPECT_GT(1000 * t.summary.mean, us);                       // it spins at least that long
    EXPECT_LT(1000 * t.summary.mean, us * 1.05 + 2 + tick_us);  // plus the launch gap and a timer step
    EXPECT_LE(t.summary.half_width, 0.01 * t.summary.mean * 1.0001 + 1e-6);
  }
}

// A launch function that throws lets the stream go at once: the blocker's spin does not run to
// its timeout (Blocker::kTimeoutNs, 1 s) before the next measurement can start.
TEST_F(TimingGpu, ALaunchThatThrowsReleasesTheStream) {
  int calls = 0;
  const LaunchFn throws = [&]() -> LaunchStatus {
    if (++calls > 1) throw Error("arguments that do not fit");  // after the calibration launch
    return spin(2.0)();
  };
  EXPECT_THROW(measure(*session_, throws), Error);
  const auto t0 = std::chrono::steady_clock::now();
  const Timing after = measure(*session_, spin(2.0));
  const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  EXPECT_TRUE(after.ok()) << after.status.message;
  EXPECT_LT(s, 0.5) << "the next measurement waited for the blocker's timeout";
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

// The screen (timing.h): a measurement whose fastest sample is over the bar stops after
// screen_after samples, between the batches of its first round; one under the bar runs in full.
TEST_F(TimingGpu, TheScreenStopsAHopelessMeasurementEarly) {
  TimingOptions o;
  o.screen_after = 3;
  o.screen_above_ms = 0.010;  // 10 us
  const Timing slow = measure(*session_, spin(50.0), o);
  ASSERT_TRUE(slow.ok()) << slow.status.message;
  EXPECT_TRUE(slow.screened);
  EXPECT_EQ(slow.samples_ms.size(), 3u);
  const Timing fast = measure(*session_, spin(5.0), o);
  ASSERT_TRUE(fast.ok()) << fast.status.message;
  EXPECT_FALSE(fast.screened);
  EXPECT_GE(fast.samples_ms.size(), static_cast<std::size_t>(o.min_samples));
}

TEST_F(TimingGpu, ACalibrationThatOutlastsTheHoldIsTakenAgain) {
  // A launch function whose first call stalls the host past the hold's 1 s timeout, as cuBLAS's first
  // call did behind the hold: calibrated from that call alone, a 2 us kernel would not be batched.
  bool first = true;
  const LaunchFn quick = spin(2.0);
  const LaunchFn stalls_once = [&] {
    if (first) std::this_thread::sleep_for(std::chrono::milliseconds(1200));
    first = false;
    return quick();
  };
  const Timing t = measure(*session_, stalls_once);
  ASSERT_TRUE(t.ok()) << t.status.message;
  EXPECT_FALSE(first);
  EXPECT_GT(t.launches_per_sample, 1);
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

TEST_F(TimingGpu, ARaceTakesContendersOutAndStopsWhenTheHookSaysSo) {
  const std::vector<std::vector<LaunchFn>> fns = {{spin(20.0)}, {spin(20.0)}, {spin(30.0)}};
  int calls = 0;
  auto hook = [&](int rounds, std::span<const Timing> so_far, std::vector<bool>& racing) {
    EXPECT_EQ(rounds, ++calls);
    EXPECT_EQ(so_far.size(), 3u);
    if (so_far[2].summary.count == 0 && !so_far[2].samples_ms.empty()) racing[2] = false;  // out after one round
    return rounds < 3;
  };
  const auto t = measure_interleaved(*session_, fns, TimingOptions{}, 10, 2, hook);
  EXPECT_EQ(calls, 3);
  EXPECT_EQ(t[0].samples_ms.size(), 6u);  // 3 rounds x 2 samples
  EXPECT_EQ(t[1].samples_ms.size(), 6u);
  EXPECT_EQ(t[2].samples_ms.size(), 2u);  // one round
  EXPECT_GT(t[2].summary.mean, 1.3 * t[0].summary.mean);
}

// A kernel of a few microseconds (launch-bound, as the transpose at 128..1024 is) measures what an
// application's own timing loop of the same launches measures (issue: runtime library, the
// example was up to 11% faster than tune's recorded time).
TEST_F(TimingGpu, AShortKernelMeasuresWhatAnApplicationLoopMeasures) {
  const int n = 128 * 128;
  std::vector<DeviceBuffer> in, out;
  for (int p = 0; p < 4; ++p) {
    in.emplace_back(n * sizeof(float));
    out.emplace_back(n * sizeof(float));
    in.back().memset(0);
  }
  std::vector<LaunchFn> fns;
  std::vector<std::vector<void*>> ptrs(4);
  for (int p = 0; p < 4; ++p) {
    ptrs[p] = {in[p].data(), out[p].data()};
    fns.push_back([&, p] {
      int count = n;
      void* args[] = {&ptrs[p][0], &ptrs[p][1], &count};
      const cudaError_t c = cudaLaunchKernel(copy_->handle(), dim3(n / 256), dim3(256), args, 0, nullptr);
      return c == cudaSuccess ? LaunchStatus{} : classify(c, "copy");
    });
  }
  const std::vector<std::pair<const char*, LaunchFn>> kernels = {{"spin 2 us", spin(2.0)}, {"copy 64 KB", fns[0]}};
  for (const auto& [name, f] : kernels) {
    const double app = application_loop_ms(f, *sleep_hold_, 30);
    const Timing t = measure(*session_, f);
    const auto four =
        measure_interleaved(*session_, std::vector<std::vector<LaunchFn>>{fns, fns}, TimingOptions{}, 4, 4);
    ASSERT_TRUE(t.ok() && four[0].ok() && four[1].ok());
    std::printf("%s: application loop %.3f us; measure %.3f us (N %d); interleaved on 4 placements %.3f, %.3f us\n",
                name, 1000 * app, 1000 * t.summary.mean, t.launches_per_sample, 1000 * four[0].summary.mean,
                1000 * four[1].summary.mean);
    EXPECT_NEAR(t.summary.mean, app, 0.03 * app);
    // what is queued behind a batch, and the time per launch from the slope of two batch lengths
    const double behind_launch = application_loop_ms(f, *sleep_hold_, 30, After::launch);
    const double behind_event = application_loop_ms(f, *sleep_hold_, 30, After::event);
    const double k10 = application_loop_ms(f, *sleep_hold_, 30, After::launch, 10);
    const double k40 = application_loop_ms(f, *sleep_hold_, 30, After::launch, 40);
    std::printf(
        "%s: application loop with a launch behind each batch %.3f us, an event behind %.3f us; per launch "
        "from 10 and 40 launches behind a launch %.3f us (10: %.3f, 40: %.3f)\n",
        name, 1000 * behind_launch, 1000 * behind_event, 1000 * (40 * k40 - 10 * k10) / 30, 1000 * k10, 1000 * k40);
  }
}

// Launches of `kernel` (an n x n transpose of 32 x 8 threads per 32 x 32 tile, as transpose and
// transpose_cs) on `count` placements of its arguments, each its own input and output.
struct Placements {
  std::vector<DeviceBuffer> in, out;
  std::vector<std::array<void*, 2>> ptrs;
  std::vector<LaunchFn> fns;
  Placements(const LoadedKernel& kernel, int n, int count) {
    const std::size_t bytes = std::size_t(n) * n * sizeof(float);
    ptrs.reserve(static_cast<std::size_t>(count));
    fns.reserve(static_cast<std::size_t>(count));
    for (int p = 0; p < count; ++p) {
      in.emplace_back(bytes).memset(1);
      out.emplace_back(bytes);
      ptrs.push_back({out.back().data(), in.back().data()});
    }
    for (std::size_t p = 0; p < ptrs.size(); ++p)
      fns.push_back([this, &kernel, n, p] {
        int size = n;
        void* args[] = {&ptrs[p][0], &ptrs[p][1], &size};
        const auto blocks = static_cast<unsigned>((n + 31) / 32);
        const cudaError_t c = cudaLaunchKernel(kernel.handle(), dim3(blocks, blocks), dim3(32, 8), args, 0, nullptr);
        return c == cudaSuccess ? LaunchStatus{} : classify(c, "transpose");
      });
  }
  Placements(const Placements&) = delete;  // the launches point into this one
  Placements& operator=(const Placements&) = delete;
};

// Near the L2's capacity (two 2432 x 2432 float matrices: 47 MB against the H100's 50 MB), a
// kernel timed on many placements of its arguments, one primed batch each, measures what it
// measures on two (warm L2: the priming brings each placement's data back).
TEST_F(TimingGpu, ManyPlacementsNearTheL2CapacityMeasureTheWarmTime) {
  for (int n : {2432, 2560}) {
    const Placements placed(*transpose_, n, 16);
    const std::vector<LaunchFn>& fns = placed.fns;
    const std::span<const LaunchFn> all(fns);
    const double app = application_loop_ms(fns[0], *sleep_hold_, 30);
    const Timing two = measure(*session_, all.first(2), TimingOptions{});
    ASSERT_TRUE(two.ok());
    std::printf("transpose %d: application loop %.2f us, 2 placements %.2f us;", n, 1000 * app,
                1000 * two.summary.mean);
    double sixteen = 0;
    for (std::size_t p : {4, 8, 16}) {
      const auto t = measure_interleaved(*session_, std::vector<std::vector<LaunchFn>>{{all.begin(), all.begin() + p}},
                                         TimingOptions{}, 2, static_cast<int>(p));
      ASSERT_TRUE(t[0].ok());
      std::printf(" %zu placements interleaved %.2f us;", p, 1000 * t[0].summary.mean);
      sixteen = t[0].summary.mean;
    }
    // the same 16 placements four at a time
    double quarters = 0;
    for (std::size_t q = 0; q < 4; ++q) {
      const auto t = measure_interleaved(
          *session_, std::vector<std::vector<LaunchFn>>{{all.begin() + 4 * q, all.begin() + 4 * q + 4}},
          TimingOptions{}, 2, 4);
      ASSERT_TRUE(t[0].ok());
      quarters += t[0].summary.mean / 4;
    }
    std::printf(" 16 four at a time %.2f us\n", 1000 * quarters);
    EXPECT_NEAR(sixteen, two.summary.mean, 0.03 * two.summary.mean);
  }
}

// Near the L2's capacity an evict-first kernel's warm time does not depend on what ran before:
// each block starts from an emptied L2 (timing.h). Without that, other data left in L2 by plain
// stores stayed there (evict-first lines do not displace them) and the same kernel measured 5 to
// 19% slower on an H200.
TEST_F(TimingGpu, WhatRanBeforeDoesNotMoveTheWarmTime) {
  const std::size_t l2 = session_->device().l2_bytes;
  // two matrices about the L2's size together, n a multiple of 128
  const int n = std::max(128, static_cast<int>(std::sqrt(0.53 * static_cast<double>(l2) / sizeof(float))) / 128 * 128);
  const Placements placed(*transpose_cs_, n, 2);
  const std::vector<LaunchFn>& fns = placed.fns;
  DeviceBuffer other(2 * l2);
  auto after_other_data = [&] {  // the L2 full of other data, written by plain stores
    other.memset(7);
    return measure(*session_, fns, TimingOptions{});
  };
  ASSERT_TRUE(measure(*session_, fns, TimingOptions{}).ok());
  const Timing quiet = measure(*session_, fns, TimingOptions{});
  const Timing after = after_other_data();
  const Timing quiet_again = measure(*session_, fns, TimingOptions{});
  ASSERT_TRUE(quiet.ok() && after.ok() && quiet_again.ok());
  std::printf("evict-first transpose %d: %.2f us, after other data in L2 %.2f us, again %.2f us\n", n,
              1000 * quiet.summary.mean, 1000 * after.summary.mean, 1000 * quiet_again.summary.mean);
  EXPECT_NEAR(after.summary.mean, quiet.summary.mean, 0.03 * quiet.summary.mean);
  EXPECT_NEAR(quiet_again.summary.mean, quiet.summary.mean, 0.03 * quiet.summary.mean);
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

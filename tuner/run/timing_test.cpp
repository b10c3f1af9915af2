// The timing method's rules that need no GPU: the batch size, the stop rule, the options, the
// throttle classification and NVML's absence.
#include <gtest/gtest.h>

#include <cmath>

#include "common/error.h"
#include "compile/compile.h"
#include "run/blocker.h"
#include "run/device_ops.h"
#include "run/nvml.h"
#include "run/timing.h"

using namespace tune;
using namespace tune::run;

TEST(TimingMethod, ABatchLastsAtLeastTheMinimum) {
  TimingOptions o;                               // 50 us
  EXPECT_EQ(launches_per_sample(0.003, o), 17);  // 3 us -> 17 launches = 51 us
  EXPECT_EQ(launches_per_sample(0.050, o), 1);   // long enough alone
  EXPECT_EQ(launches_per_sample(2.5, o), 1);
  EXPECT_EQ(launches_per_sample(1e-6, o), Blocker::kMaxLaunchesPerHold / 8);  // bounded
  EXPECT_EQ(launches_per_sample(0.0, o), Blocker::kMaxLaunchesPerHold / 8);   // unmeasurably short
  o.flush_l2 = true;
  EXPECT_EQ(launches_per_sample(0.003, o), 1);  // each launch behind its own flush
}

TEST(TimingMethod, StopsWhenTheIntervalIsNarrowAfterTheMinimum) {
  TimingOptions o;  // 10 samples, 1%, 200 ms
  std::vector<double> tight(10, 1.0);
  tight[3] = 1.001;
  EXPECT_TRUE(enough(tight, 10.0, o));
  EXPECT_FALSE(enough(std::span(tight).first(9), 9.0, o));  // below the minimum
  std::vector<double> noisy = {1, 1.2, 0.8, 1.1, 0.9, 1.3, 0.7, 1, 1.15, 0.85};
  EXPECT_FALSE(enough(noisy, 10.0, o));  // +-10%: keep measuring
  EXPECT_TRUE(enough(noisy, 200.0, o));  // ... until the time is up
  o.max_samples = 10;
  EXPECT_TRUE(enough(noisy, 10.0, o));  // ... or the samples
  o.max_samples = 200;
  o.min_time_ms = 50;
  EXPECT_FALSE(enough(tight, 10.0, o));  // a minimum time first
}

// The screen stops a first pass once screen_after samples are in and even the fastest is over the
// bar: one slow sample among fast ones (a hiccup) does not stop it.
TEST(TimingMethod, TheScreenStopsOnlyWhenEvenTheFastestSampleIsOverTheBar) {
  TimingOptions o;
  const std::vector<double> slow = {1.5, 1.4, 1.45, 1.6};
  EXPECT_FALSE(screened_out(slow, o));  // off by default
  o.screen_above_ms = 1.3;
  EXPECT_FALSE(screened_out(std::span(slow).first(2), o));  // fewer than screen_after (3)
  EXPECT_TRUE(screened_out(std::span(slow).first(3), o));
  const std::vector<double> hiccup = {1.5, 1.2, 1.45};
  EXPECT_FALSE(screened_out(hiccup, o));  // one sample under the bar: a contender, measured in full
  o.screen_after = 1;
  EXPECT_TRUE(screened_out(std::span(slow).first(1), o));
  o.screen_after = 0;
  EXPECT_THROW(validate(o), InputError);
  o.screen_after = 3;
  o.screen_above_ms = -1;
  EXPECT_THROW(validate(o), InputError);
}

TEST(TimingMethod, BadOptionsNameTheOption) {
  TimingOptions o;
  o.min_samples = 0;
  try {
    validate(o);
    FAIL();
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("repetitions"), std::string::npos) << e.what();
  }
  o = {};
  o.max_samples = 5;
  EXPECT_THROW(validate(o), InputError);
  o = {};
  o.rel_ci = 0;
  EXPECT_THROW(validate(o), InputError);
  o = {};
  o.max_time_ms = INFINITY;
  EXPECT_THROW(validate(o), InputError);
  EXPECT_NO_THROW(validate(TimingOptions{}));
}

TEST(TimingMethod, SummaryHasTheMeansInterval) {
  const std::vector<double> s = {1.0, 2.0, 3.0, 4.0, 5.0};
  const Summary m = summarize(s);
  EXPECT_DOUBLE_EQ(m.mean, 3.0);
  EXPECT_NEAR(m.half_width, 2.776 * std::sqrt(2.5) / std::sqrt(5.0), 1e-9);
  EXPECT_EQ(summarize(std::vector<double>{}).count, 0u);
}

TEST(Throttle, OnlySlowdownReasonsCount) {
  EXPECT_FALSE(throttling(0));
  EXPECT_FALSE(
      throttling(reason::kGpuIdle | reason::kApplicationsClocks | reason::kSyncBoost | reason::kDisplayClocks));
  for (auto r :
       {reason::kSwPowerCap, reason::kHwSlowdown, reason::kSwThermal, reason::kHwThermal, reason::kHwPowerBrake})
    EXPECT_TRUE(throttling(r | reason::kGpuIdle)) << r;
  EXPECT_EQ(describe_reasons(0), "none");
  EXPECT_EQ(describe_reasons(reason::kSwPowerCap | reason::kHwThermal), "power cap, HW thermal slowdown");
  EXPECT_EQ(describe_reasons(1ull << 40), "other");
}

TEST(Throttle, RetakesUntilThrottlingIsTheSteadyState) {
  // a throttled round is taken again up to max_retakes times
  EXPECT_TRUE(take_again(true, false, 0, 3, 0));
  EXPECT_TRUE(take_again(true, false, 2, 3, kSteadyThrottle - 1));
  EXPECT_FALSE(take_again(true, false, 3, 3, 0));
  EXPECT_FALSE(take_again(false, false, 0, 3, 0));
  // once kSteadyThrottle measurements in a row stayed throttled, throttling alone takes no round again
  EXPECT_FALSE(take_again(true, false, 0, 3, kSteadyThrottle));
  EXPECT_FALSE(take_again(true, false, 0, 3, kSteadyThrottle + 5));
  // a hold that timed out is taken again whatever the throttling
  EXPECT_TRUE(take_again(true, true, 0, 3, kSteadyThrottle));
  EXPECT_TRUE(take_again(false, true, 1, 3, 0));
  EXPECT_FALSE(take_again(false, true, 1, 1, 0));
  // the policy sets how many in a row make the steady state (decision::Policy::steady_throttle)
  EXPECT_TRUE(take_again(true, false, 0, 3, kSteadyThrottle, kSteadyThrottle + 2));
  EXPECT_FALSE(take_again(true, false, 0, 3, 1, 1));
}

TEST(Throttle, WithoutADriverNvmlIsAbsentAndSaysWhy) {
  const auto nvml = Nvml::open("0000:00:00.0");
  if (nvml) GTEST_SKIP() << "NVML is present on this machine";
  EXPECT_FALSE(Nvml::why().empty());
}

// The internal kernels compile for the GPU machine's architecture here, without a GPU.
TEST(InternalKernels, CompileForHopper) {
  for (const auto& r : {Blocker::request("sm_90"), device_ops_request("sm_90")}) {
    const auto res = compile::compile(r);
    EXPECT_TRUE(res.ok()) << r.source_name << ":\n" << res.log;
    EXPECT_FALSE(res.cubin.empty());
  }
}

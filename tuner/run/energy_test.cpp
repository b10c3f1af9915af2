// The energy method's arithmetic on the CPU (run/energy.h); the window itself runs on the GPU
// (bench/energy: the H200 figures).
#include "run/energy.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <vector>

#include "common/error.h"
#include "run/device.h"

namespace tune::run {
namespace {

// Updates of a counter every 20 ms at 400 W (8000 mJ a step), one interval at 410 W.
TEST(Energy, PowerOverWholeUpdatesAndItsInterval) {
  const std::vector<CounterReading> u = {{5, 1000}, {25, 9000}, {45, 17000}, {65, 25200}};
  const PowerEstimate p = power_over(u);
  EXPECT_EQ(p.intervals, 3);
  EXPECT_NEAR(p.watts, (25200.0 - 1000.0) / 60.0, 1e-9);
  EXPECT_GT(p.half_width, 0);
  EXPECT_LT(p.half_width, 20);
  ASSERT_TRUE(p.period_ms);
  EXPECT_EQ(*p.period_ms, 20);
  EXPECT_EQ(p.min_step_mj, 8000u);
  EXPECT_TRUE(p.resolved(kMinStepMj));
}

// A counter that moved by a few units, or updated once, is below its resolution: no figure.
TEST(Energy, UnresolvedBelowTheCountersSteps) {
  EXPECT_FALSE(power_over(std::vector<CounterReading>{{0, 10}, {20, 12}, {40, 14}}).resolved(kMinStepMj));
  EXPECT_FALSE(power_over(std::vector<CounterReading>{{0, 10}, {20, 9000}}).resolved(kMinStepMj));
  EXPECT_EQ(power_over(std::vector<CounterReading>{{0, 10}}).intervals, 0);
}

TEST(Energy, PerLaunchIsPowerTimesPeriodWithCombinedInterval) {
  PowerEstimate p;
  p.watts = 400;
  p.half_width = 12;  // 3%
  const EnergyPerLaunch e = energy_per_launch(p, 0.036, 0.04);
  EXPECT_NEAR(e.joules, 400 * 0.036e-3, 1e-15);
  EXPECT_NEAR(e.half_width / e.joules, 0.05, 1e-12);  // hypot(3%, 4%)
}

// On a GPU with NVML: the probe finds the counter's period and an idle baseline (the windows ran
// in bench/bench_energy.sh). Without a GPU, the session itself is refused (exit 3).
TEST(Energy, ProbeOnTheGpu) {
  if (!gpu_available()) {
    EXPECT_THROW(Session{}, UnavailableError);
    GTEST_SKIP() << "no GPU: " << gpu_unavailable_reason();
  }
  Session s;
  if (s.nvml() == nullptr) GTEST_SKIP() << "no NVML: " << s.nvml_why();
  EnergyMeter m(s);
  EXPECT_GT(m.period_ms(), 0);
  EXPECT_GT(m.idle().watts, 10);
  EXPECT_NE(m.describe().find("idle baseline"), std::string::npos);
}

}  // namespace
}  // namespace tune::run

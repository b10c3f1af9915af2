// The run's policy as the GPU path applies it: the first pass's timing options from the policy,
// equal to the timing method's defaults; the command line's overrides over the spec's.
#include <gtest/gtest.h>

#include <filesystem>
#include <string>

#include "common/error.h"
#include "tuning/gpu_run.h"

namespace fs = std::filesystem;
using namespace tune;

TEST(Policy, DefaultFirstPassIsTheTimingMethodsDefault) {
  const run::TimingOptions d;
  const run::TimingOptions t = tuning::first_pass_timing(decision::Policy{});
  EXPECT_EQ(t.warmup, d.warmup);
  EXPECT_EQ(t.min_samples, d.min_samples);
  EXPECT_EQ(t.max_samples, d.max_samples);
  EXPECT_DOUBLE_EQ(t.min_batch_ms, d.min_batch_ms);
  EXPECT_DOUBLE_EQ(t.rel_ci, d.rel_ci);
  EXPECT_DOUBLE_EQ(t.min_time_ms, d.min_time_ms);
  EXPECT_DOUBLE_EQ(t.max_time_ms, d.max_time_ms);
  EXPECT_EQ(t.max_retakes, d.max_retakes);
  EXPECT_EQ(t.steady_throttle, run::kSteadyThrottle);
  EXPECT_EQ(t.flush_l2, d.flush_l2);
  EXPECT_EQ(t.placements, 2);  // the ceilings are timed as the first measurements are
  EXPECT_EQ(t.screen_after, d.screen_after);
  EXPECT_DOUBLE_EQ(t.screen_above_ms, 0.0);  // set per size, from its best first pass so far
}

TEST(Policy, OverridesMapOntoTheTimingOptions) {
  decision::Policy p;
  tuning::apply_policy({"min_samples=25", "warmup=2", "flush_l2=true", "max_noise=0.005", "first_placements=1"}, p);
  const run::TimingOptions t = tuning::first_pass_timing(p);
  EXPECT_EQ(t.min_samples, 25);
  EXPECT_EQ(t.warmup, 2);
  EXPECT_TRUE(t.flush_l2);
  EXPECT_DOUBLE_EQ(t.rel_ci, 0.005);
  EXPECT_EQ(t.placements, 1);
}

TEST(Policy, TheCommandLineOverridesTheSpecAndBadValuesAreRefused) {
  tuning::Options o;
  o.space = (fs::path(TUNE_SOURCE_DIR) / "spaces" / "transpose.json").string();
  o.sizes = sizes::parse("128");
  o.db = (fs::temp_directory_path() / "tune-policy-test-never-written.db").string();
  o.policy = {"tie_margin=0.03"};
  EXPECT_DOUBLE_EQ(tuning::validate(o).extension.policy.tie_margin, 0.03);
  EXPECT_FALSE(fs::exists(o.db));  // validation writes nothing
  o.policy = {"tie_margin=0.03", "contenders=0"};
  try {
    tuning::validate(o);
    FAIL() << "contenders=0 accepted";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("bad --policy contenders=0: contenders: 0 is out of bounds (1..1000)"),
              std::string::npos)
        << e.what();
  }
  o.policy = {"race_min_rounds=9"};
  try {
    tuning::validate(o);
    FAIL() << "race_min_rounds above race_max_rounds accepted";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("race_min_rounds 9 exceeds race_max_rounds 4"), std::string::npos) << e.what();
  }
}

#include "decision/policy.h"

#include <gtest/gtest.h>

#include <functional>
#include <string>

#include "common/error.h"

namespace tune::decision {
namespace {

std::string refusal(const std::function<void()>& f) {
  try {
    f();
  } catch (const InputError& e) {
    return e.what();
  }
  return "";
}

bool has(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

TEST(Policy, DescribesTheDefaultMethod) {
  const std::string d = Policy{}.describe();
  EXPECT_TRUE(has(d, "batches of back-to-back launches (>= 50 us each)")) << d;
  EXPECT_TRUE(has(d, "stream-blocking kernel")) << d;
  EXPECT_TRUE(has(d, "warm L2 (each block from an emptied L2, then primed)")) << d;
  EXPECT_TRUE(has(d, "taken again (up to 3), unless throttling persisted through 3 measurements in a row")) << d;
  EXPECT_TRUE(has(d, "mean of 10..200 samples (ms per launch), stopped once its 95% interval is within 1.0% (200 ms"))
      << d;
  EXPECT_TRUE(has(d, "up to 8) measured again in 2 to 4 interleaved rounds")) << d;
  EXPECT_TRUE(has(d, "up to 16 placements")) << d;
  EXPECT_TRUE(has(d, "where the best takes under 20 us")) << d;
  EXPECT_TRUE(has(d, "within 8 times the tie margin (up to 24) raced on 4 placements and measured in 5 further")) << d;
  EXPECT_TRUE(has(d, "weighs its first pass by 0.25")) << d;
  EXPECT_TRUE(has(d, "tie margin 1.0%")) << d;
  EXPECT_TRUE(has(d,
                  "a first pass on 2 placements of the arguments, stopped after 3 samples once the fastest is "
                  "over 1.3 times the size's best first pass so far"))
      << d;
}

TEST(Policy, OverridesShowInTheDescription) {
  Policy p;
  p.assign("tie_margin=0.02");
  p.assign("min_samples=20");
  p.assign("statistic=median");
  p.assign("flush_l2=true");
  EXPECT_DOUBLE_EQ(p.tie_margin, 0.02);
  EXPECT_EQ(p.rule().statistic, Statistic::median);
  const std::string d = p.describe();
  EXPECT_TRUE(has(d, "tie margin 2.0%")) << d;
  EXPECT_TRUE(has(d, "20..200 samples")) << d;
  EXPECT_TRUE(has(d, "objective: the median")) << d;
  EXPECT_TRUE(has(d, "cold L2")) << d;
  EXPECT_FALSE(has(d, "further CUDA contexts")) << d;  // a flushed L2 takes no other contexts
  p.assign("screen_ratio=0");
  EXPECT_FALSE(has(p.describe(), "stopped after")) << p.describe();  // the screen off
}

TEST(Policy, RefusesBadValuesNamingTheKey) {
  Policy p;
  EXPECT_TRUE(has(refusal([&] { p.assign("tie_margin=0.9"); }), "tie_margin: 0.9 is out of bounds (0..0.5)"));
  EXPECT_TRUE(has(refusal([&] { p.assign("min_samples=2.5"); }), "min_samples: expected a whole number"));
  EXPECT_TRUE(has(refusal([&] { p.assign("min_samples=0"); }), "min_samples: 0 is out of bounds"));
  EXPECT_TRUE(has(refusal([&] { p.assign("flush_l2=1"); }), "flush_l2: expected true or false"));
  EXPECT_TRUE(
      has(refusal([&] { p.assign("statistic=max"); }), "statistic: expected \"mean\" or \"median\", got \"max\""));
  EXPECT_TRUE(
      has(refusal([&] { p.assign("tie_margn=0.01"); }), "tie_margn: not a policy key (did you mean 'tie_margin'?)"));
  EXPECT_TRUE(has(refusal([&] { p.assign("tie_margin"); }), "expected key=value"));
  EXPECT_TRUE(has(refusal([&] { p.set("first_pass_weight", 1.0); }), "out of bounds"));
  EXPECT_DOUBLE_EQ(p.tie_margin, Policy{}.tie_margin);  // nothing refused was set
}

TEST(Policy, ChecksValuesAgainstEachOther) {
  Policy p;
  p.assign("min_samples=300");
  EXPECT_TRUE(has(refusal([&] { p.check(); }), "min_samples 300 exceeds max_samples 200"));
  p = Policy{};
  p.assign("race_min_rounds=5");
  EXPECT_TRUE(has(refusal([&] { p.check(); }), "race_min_rounds 5 exceeds race_max_rounds 4"));
  p = Policy{};
  p.assign("screen_ratio=1.05");  // inside the reach of contenders elsewhere (1 + 8 x 1%)
  EXPECT_TRUE(has(refusal([&] { p.check(); }),
                  "screen_ratio 1.05 would screen out contenders: it must be 0 (off) "
                  "or above 1.08"))
      << refusal([&] { p.check(); });
  p.assign("screen_ratio=0");
  EXPECT_NO_THROW(p.check());
  p.assign("screen_ratio=1.1");
  EXPECT_NO_THROW(p.check());
  p = Policy{};
  p.assign("energy_race_max_rounds=2");
  EXPECT_TRUE(has(refusal([&] { p.check(); }), "energy_race_min_rounds 3 exceeds energy_race_max_rounds 2"));
  EXPECT_EQ(refusal([] { Policy{}.check(); }), "");
}

TEST(Policy, EveryKeyIsSettableWithinItsBounds) {
  for (const PolicyKey& k : policy_keys()) {
    Policy p;
    const std::string name(k.name);
    if (name == "statistic")
      p.set(name, "median");
    else if (name == "flush_l2")
      p.set(name, true);
    else
      EXPECT_EQ(refusal([&] { p.set(name, static_cast<std::int64_t>(k.max)); }), "") << name;
  }
}

}  // namespace
}  // namespace tune::decision

// The decision's first-pass weight (policy.h: first_pass_weight, decision::across_moments), on the
// races and first passes of four main jobs measured on the GPU.
#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <span>
#include <vector>

#include "decision/decision.h"
#include "decision/policy.h"

using namespace tune;

namespace {

// One contender at 3328x3328 in one main job on an H200 (recorded before the first-pass weight;
// bench/journal.md): its value in the race and its first pass, us per launch.
struct Contender {
  int config;
  double race_us, first_us;
};
// Runs a to d, every contender each raced. 126 and 131 are one kernel but for 131's evict-first
// hints; 131 over 126 read 1.014 and 1.018 in the races of a and b, 0.979 and 0.986 in c and d.
const std::map<char, std::vector<Contender>> kH200At3328 = {
    {'a',
     {{239, 24.5876, 24.9643},
      {126, 24.6038, 24.3104},
      {38, 24.7922, 24.6848},
      {234, 24.8235, 24.6613},
      {42, 24.8320, 24.6432},
      {131, 24.9380, 24.7019},
      {127, 24.9635, 24.4032},
      {193, 25.1505, 24.6453},
      {59, 25.2635, 24.6720},
      {72, 25.3035, 24.6645}}},
    {'b',
     {{126, 24.4335, 24.3406},
      {38, 24.6344, 24.5045},
      {234, 24.6426, 24.0960},
      {130, 24.7665, 24.3627},
      {131, 24.8740, 24.4480},
      {239, 24.9153, 24.3179},
      {237, 24.9937, 24.4117},
      {128, 25.1400, 24.4331}}},
    {'c',
     {{131, 24.2771, 24.8800},
      {126, 24.8065, 24.5941},
      {234, 24.8565, 24.5440},
      {130, 24.9713, 24.4597},
      {341, 24.9878, 24.5451},
      {239, 25.0190, 24.8021},
      {70, 25.0270, 24.5344},
      {235, 25.0360, 24.5120},
      {71, 25.1785, 24.6261},
      {78, 25.2065, 24.5387}}},
    {'d',
     {{131, 24.3644, 24.2251},
      {234, 24.5743, 24.3931},
      {126, 24.7121, 24.4080},
      {65, 24.9594, 24.4811},
      {127, 24.9600, 24.2805},
      {239, 24.9607, 24.7936},
      {129, 25.0795, 24.4405},
      {39, 25.1660, 24.4853},
      {306, 25.1765, 24.4949}}},
};

// Each configuration's decided value in one run, the race and first pass combined at `weight`.
std::map<int, double> decided(const std::vector<Contender>& run, double weight) {
  std::vector<decision::Estimate> now, then;
  for (const Contender& c : run) {
    now.push_back({c.race_us, 0.004 * c.race_us, 64});
    then.push_back({c.first_us, 0.003 * c.first_us, 20});
  }
  const std::vector<decision::Estimate> e = decision::across_moments(now, then, weight);
  std::map<int, double> out;
  for (std::size_t k = 0; k < run.size(); ++k) out[run[k].config] = e[k].value;
  return out;
}

// The worst regret over every ordered pair of runs: one run's winner, its value in the other run
// over that run's best (where the other run raced it).
double worst_regret(double weight) {
  std::map<char, std::map<int, double>> value;
  for (const auto& [run, contenders] : kH200At3328) value[run] = decided(contenders, weight);
  auto winner = [](const std::map<int, double>& v) {
    return std::min_element(v.begin(), v.end(), [](const auto& a, const auto& b) { return a.second < b.second; })
        ->first;
  };
  double worst = 1.0;
  for (const auto& [x, vx] : value)
    for (const auto& [y, vy] : value) {
      const auto it = vy.find(winner(vx));
      if (x == y || it == vy.end()) continue;
      worst = std::max(worst, it->second / vy.at(winner(vy)));
    }
  return worst;
}

}  // namespace

TEST(FirstPassWeight, TheH200RunsAt3328AgreeWithinTwoPercent) {
  EXPECT_LE(worst_regret(decision::Policy{}.first_pass_weight), 1.02);
  EXPECT_GT(worst_regret(0.0), 1.03);  // the race alone: run a's winner 239 is 3.1% behind in run c
}

TEST(FirstPassWeight, TheRaceStillWeighsMost) {
  EXPECT_GT(decision::Policy{}.first_pass_weight, 0.0);
  EXPECT_LT(decision::Policy{}.first_pass_weight, 0.5);
  // run c's race put 131 2.1% ahead of 126 and its first pass 1.2% behind: 131 still leads there
  const std::map<int, double> c = decided(kH200At3328.at('c'), decision::Policy{}.first_pass_weight);
  EXPECT_LT(c.at(131), c.at(126));
}

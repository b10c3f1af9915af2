// The energy race's arithmetic (decision/energy_race.h) on synthetic windows: the board's power
// drifting over the race, window noise, the stopping rule.
#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "common/error.h"
#include "decision/energy_race.h"

using namespace tune;
using decision::EnergyRaceRule;
using decision::Estimate;

namespace {

// The rounds of a race measured on a board whose power rises `drift` per window (compounded, as
// it warms), each window off by a deterministic pseudo-random noise of up to +-`noise`; the
// contenders' true values `truth`, visited in energy_round_order.
std::vector<std::vector<double>> race(const std::vector<double>& truth, int rounds, double drift, double noise) {
  std::vector<std::vector<double>> out;
  double level = 1;
  unsigned state = 12345;
  for (int r = 0; r < rounds; ++r) {
    std::vector<double> row(truth.size());
    for (std::size_t k : decision::energy_round_order(truth.size(), r)) {
      state = state * 1103515245u + 12345u;
      const double u = static_cast<double>((state >> 8) % 20001) / 10000.0 - 1;  // [-1, 1]
      row[k] = truth[k] * level * (1 + noise * u);
      level *= 1 + drift;
    }
    out.push_back(row);
  }
  return out;
}

}  // namespace

TEST(EnergyRace, RoundsAlternateTheirOrder) {
  EXPECT_EQ(decision::energy_round_order(3, 0), (std::vector<std::size_t>{0, 1, 2}));
  EXPECT_EQ(decision::energy_round_order(3, 1), (std::vector<std::size_t>{2, 1, 0}));
  EXPECT_EQ(decision::energy_round_order(3, 4), (std::vector<std::size_t>{0, 1, 2}));
}

// The board warms by 0.5% a window (14% over the race, more than the contenders differ): each
// round's level takes the drift between rounds out, the alternating order the drift within them.
TEST(EnergyRace, ADriftLargerThanTheDifferencesCancels) {
  const std::vector<double> truth = {1.00, 1.03, 0.99, 1.01};
  const auto rounds = race(truth, 6, 0.005, 0.0);
  const std::vector<Estimate> e = decision::energy_race_estimates(rounds);
  ASSERT_EQ(e.size(), truth.size());
  for (std::size_t k = 0; k < truth.size(); ++k) {
    EXPECT_NEAR(e[k].value / e[0].value, truth[k] / truth[0], 0.0015) << k;
    EXPECT_EQ(e[k].samples, 6u);
    EXPECT_LT(e[k].relative(), 0.004) << k;  // the drift does not widen the intervals
  }
  // the mean of a contender's raw windows would not do: in the forward rounds the last
  // contender reads 1.5% higher for its position alone
  const std::vector<double> levels = decision::energy_round_levels(rounds);
  ASSERT_EQ(levels.size(), 6u);
  EXPECT_GT(levels.back() / levels.front(), 1.09);
}

TEST(EnergyRace, StopsOnceTheLeaderIsSeparated) {
  EnergyRaceRule rule;  // 3..6 rounds, 0.5% noise
  rule.noise = 0.0001;  // never "known": only the separation can stop it
  const std::vector<double> truth = {1.00, 1.08, 1.10};
  auto rounds = race(truth, 2, 0.002, 0.004);
  EXPECT_FALSE(decision::energy_race_done(rounds, rule));  // before min_rounds
  rounds = race(truth, 3, 0.002, 0.004);
  EXPECT_TRUE(decision::energy_race_done(rounds, rule));
}

TEST(EnergyRace, StopsOnceEveryContenderIsKnownWithinTheNoise) {
  EnergyRaceRule rule;
  const std::vector<double> truth = {1.000, 1.002, 1.004};  // tied: never separated
  EXPECT_TRUE(decision::energy_race_done(race(truth, 3, 0.003, 0.001), rule));
  // noisier windows: not known within 0.5% at 3 rounds, so it goes on, and ends at max_rounds
  EXPECT_FALSE(decision::energy_race_done(race(truth, 3, 0.003, 0.03), rule));
  EXPECT_TRUE(decision::energy_race_done(race(truth, 6, 0.003, 0.03), rule));
}

TEST(EnergyRace, OneContenderIsNoRace) {
  EXPECT_TRUE(decision::energy_race_done(race({1.0}, 1, 0, 0), EnergyRaceRule{}));
  EXPECT_TRUE(decision::energy_race_estimates(std::vector<std::vector<double>>{}).empty());
}

TEST(EnergyRace, RejectsRaggedOrNonPositiveRounds) {
  const std::vector<std::vector<double>> ragged = {{1.0, 2.0}, {1.0}};
  EXPECT_THROW(decision::energy_race_estimates(ragged), Error);
  const std::vector<std::vector<double>> zero = {{1.0, 0.0}};
  EXPECT_THROW(decision::energy_race_estimates(zero), Error);
  const std::vector<std::vector<double>> nan = {{1.0, std::nan("")}};
  EXPECT_THROW(decision::energy_round_levels(nan), Error);
}

#include "decision/objective.h"

#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "common/error.h"

namespace tune::decision {
namespace {

TEST(Objective, ParsesItsThreeNamesAndRefusesOthers) {
  for (Objective o : {Objective::time, Objective::energy, Objective::edp}) EXPECT_EQ(parse_objective(to_string(o)), o);
  try {
    parse_objective("power");
    ADD_FAILURE() << "power parsed";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("objective 'power'"), std::string::npos) << e.what();
  }
  EXPECT_EQ(unit(Objective::edp), "J*ms");
}

TEST(Objective, EnergyAndEdpNeedEnergyAndCombineIntervals) {
  const TimeEnergy t_only{{0.036, 0.00036, 10}, std::nullopt};
  EXPECT_EQ(objective_estimate(Objective::time, t_only)->value, 0.036);
  EXPECT_FALSE(objective_estimate(Objective::energy, t_only));
  EXPECT_FALSE(objective_estimate(Objective::edp, t_only));
  const TimeEnergy both{{2.0, 0.02, 10}, Estimate{0.5, 0.015, 4}};  // 1% and 3%
  EXPECT_EQ(objective_estimate(Objective::energy, both)->value, 0.5);
  const Estimate edp = *objective_estimate(Objective::edp, both);
  EXPECT_DOUBLE_EQ(edp.value, 1.0);
  EXPECT_NEAR(edp.relative(), std::sqrt(0.01 * 0.01 + 0.03 * 0.03), 1e-12);
  EXPECT_EQ(edp.samples, 4u);
}

// Five configurations of one size: the fastest, a slower one that draws less energy, one beaten by
// it in both, a slowest one with the least energy, and one with no energy; the front is the three
// that trade time for energy, by time.
TEST(Objective, ParetoFrontKeepsOnlyTheUnbeatenByTime) {
  const std::vector<TimeEnergyPoint> p = {{0.040, 0.020}, {0.036, 0.018}, {0.050, 0.012},
                                          {0.045, 0.015}, {0.030, 0},     {0.039, 0.016}};
  EXPECT_EQ(pareto_front(p), (std::vector<std::size_t>{1, 5, 3, 2}));
  const std::vector<TimeEnergyPoint> tie = {{1, 2}, {1, 2}, {1, 3}};
  EXPECT_EQ(pareto_front(tie), (std::vector<std::size_t>{0}));  // an equal point is not in front twice
  EXPECT_TRUE(pareto_front(std::vector<TimeEnergyPoint>{}).empty());
}

}  // namespace
}  // namespace tune::decision

// Continuous positions over value indices and snap() to the nearest valid configuration, on the
// real benchmark_hub spaces (data/) and on small spaces built to force each step of the search.
#include "search/continuous.h"

#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <limits>
#include <map>
#include <utility>

#include "common/test_data.h"
#include "spec/spec.h"

using namespace tune;
using namespace tune::search;

namespace {

const space::Space& hub(const std::string& name) {
  static std::map<std::string, space::Space> built;
  auto it = built.find(name);
  if (it == built.end())
    it = built.emplace(name, space::Space::build(spec::load(test_data::file("benchmark_hub/" + name + ".json")))).first;
  return it->second;
}

space::Space small(const std::string& values, const std::string& condition, int params) {
  std::string tp;
  for (int i = 0; i < params; ++i)
    tp += std::string(i ? "," : "") + R"({"Name": "p)" + std::to_string(i) + R"(", "Type": "int", "Values": ")" +
          values + R"("})";
  std::string names;
  for (int i = 0; i < params; ++i) names += std::string(i ? "," : "") + "\"p" + std::to_string(i) + "\"";
  const std::string text = R"({"General": {"BenchmarkName": "t", "FormatVersion": 1},
    "ConfigurationSpace": {"TuningParameters": [)" +
                           tp + R"(],
     "Conditions": [{"Expression": ")" +
                           condition + R"(", "Parameters": [)" + names + R"(]}]},
    "KernelSpecification": {"Language": "CUDA", "KernelName": "k", "KernelFile": "k.cu",
      "GlobalSize": {"X": "1"}, "LocalSize": {"X": "1"}}})";
  return space::Space::build(spec::parse(text, "small.json"));
}

bool valid(const space::Space& s, std::size_t c) { return c < s.size() && s.satisfies(s.config_values(c)); }

}  // namespace

TEST(Snap, EveryConfigurationSnapsToItself) {
  for (const char* name : {"convolution_milo", "dedispersion_milo"})
    for (Scale scale : {Scale::step, Scale::unit}) {
      const auto& s = hub(name);
      const Continuous box(s, scale);
      Rng rng(1);
      for (std::size_t c = 0; c < s.size(); ++c) ASSERT_EQ(box.snap(box.position(c), rng), c) << name;
    }
}

TEST(Snap, RandomAndOutOfRangePositionsSnapToValidConfigurations) {
  for (const char* name : {"convolution_milo", "dedispersion_milo"})
    for (Scale scale : {Scale::step, Scale::unit}) {
      const auto& s = hub(name);
      const Continuous box(s, scale);
      Rng rng(7);
      std::size_t invalid_cells = 0;
      for (int i = 0; i < 5000; ++i) {
        auto x = box.random_position(rng);
        if (i % 10 == 0)  // out of the box, and NaN
          for (auto& v : x) v = (rng.uniform() - 0.5) * 10;
        if (i % 97 == 0) x[0] = std::numeric_limits<double>::quiet_NaN();
        std::vector<space::Index> cell;
        for (std::size_t p = 0; p < box.dims(); ++p) cell.push_back(box.index(p, x[p]));
        invalid_cells += !s.find(cell);
        const std::size_t c = box.snap(x, rng);
        ASSERT_TRUE(valid(s, c)) << name;
        if (auto exact = s.find(cell)) {
          EXPECT_EQ(c, *exact);
        }
      }
      EXPECT_GT(invalid_cells, 100u) << name << ": the test must exercise the search for a valid neighbour";
    }
}

TEST(Snap, AnInvalidCellGoesToTheNearestValidHammingNeighbour) {
  // p0 + p1 <= 4 over 0..9: the cell (3, 2) is invalid; its nearest valid Hamming neighbours are
  // (2, 2) and (3, 1), and which is nearer depends on where in the cell the position lies.
  const auto s = small("[0,1,2,3,4,5,6,7,8,9]", "p0 + p1 <= 4", 2);
  const Continuous box(s, Scale::step);
  Rng rng(1);
  const double st = box.step(0);
  auto snapped = [&](double a, double b) {
    const std::size_t c = box.snap(std::vector<double>{a * st, b * st}, rng);
    EXPECT_TRUE(valid(s, c));
    return std::pair<int, int>(s.indices(c)[0], s.indices(c)[1]);
  };
  EXPECT_EQ(snapped(3.1, 2.9), std::make_pair(2, 2));  // p0 down adds 0.20 step^2, p1 down 1.80
  EXPECT_EQ(snapped(3.9, 2.1), std::make_pair(3, 1));  // p0 down adds 1.80, p1 down 0.20
  EXPECT_EQ(snapped(9.9, 9.9), std::make_pair(2, 2));  // (9, 9): no valid single change; scan
}

TEST(Snap, NoValidHammingNeighbourFallsBackToTheNearestValidConfiguration) {
  // Only the diagonal p0 == p1 == p2 is valid: a cell off the diagonal in two coordinates has no
  // valid Hamming neighbour, and the nearest diagonal point must be found by the scan.
  const auto s = small("[0,1,2,3,4,5]", "p0 == p1 and p1 == p2", 3);
  ASSERT_EQ(s.size(), 6u);
  const Continuous box(s, Scale::unit);
  Rng rng(3);
  const double st = box.step(0);
  const std::size_t c = box.snap(std::vector<double>{0.5 * st, 1.5 * st, 4.5 * st}, rng);  // cell (0,1,4)
  ASSERT_TRUE(valid(s, c));
  EXPECT_EQ(s.indices(c)[0], 2);  // (2,2,2) is nearest to (0,1,4): 4+1+4 = 9 < (1,1,1): 1+0+9 = 10
}

TEST(Continuous, ScalesFollowKernelTuner) {
  const auto& s = hub("dedispersion_milo");  // block_size_y has the most values: 29
  const Continuous step(s, Scale::step), unit(s, Scale::unit);
  for (std::size_t p = 0; p < s.num_params(); ++p) {
    EXPECT_DOUBLE_EQ(step.step(p), 1.0 / 29);
    EXPECT_DOUBLE_EQ(unit.upper(p), 1.0);
  }
  EXPECT_DOUBLE_EQ(step.upper(1), 1.0);
  EXPECT_EQ(step.active().size(), 6u);  // block_size_z and loop_unroll_factor_channel have one value
  std::vector<double> x{-1, 2, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5};
  step.clamp(x);
  EXPECT_EQ(x[0], 0.0);
  EXPECT_EQ(x[1], 1.0);
  EXPECT_EQ(step.index(1, 1.0), 28);
  EXPECT_EQ(step.index(1, 0.999 / 29), 0);
}

// The energy objective through the `tune` binary: best --objective and --pareto on an imported
// Kernel Tuner cache with NVMLObserver fields, a replay and an evaluation on energy, and the
// refusals (one line, exit 2 or 3, nothing written) without energy, without a GPU or NVML.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>

#include "decision/objective.h"
#include "interop/interop.h"
#include "interop/test_util.h"

namespace tune::interop {
namespace {

using namespace testing;

const std::filesystem::path kSource = TUNE_SOURCE_DIR;
const std::string kNvmlCache = (kSource / "tuner" / "interop" / "testdata" / "kt_nvml_cache.json").string();
const std::string kT1 = "kernel_tuner/test/test_cache_file_T1_input.json";

class EnergyCli : public ::testing::Test {
 protected:
  void SetUp() override {
    bin = tune_binary();
    if (bin.empty()) GTEST_SKIP() << "no tune binary beside this test (build the `tune` target too)";
  }
  Shell tune(const std::string& args) const { return shell(bin + " " + args + " --db " + db); }
  std::string bin;
  TempDir dir;
  std::string db = dir.file("e.db");
};

std::size_t lines(const std::string& s) { return static_cast<std::size_t>(std::count(s.begin(), s.end(), '\n')); }
// The lines that say why tune stopped (a replay logs what it read before it finds the cause).
std::size_t errors(const std::string& s) {
  std::size_t n = 0;
  for (std::size_t at = 0; at < s.size(); at = s.find('\n', at) + 1) {
    n += s.compare(at, 5, "tune:") == 0 ? 1 : 0;
    if (s.find('\n', at) == std::string::npos) break;
  }
  return n;
}

TEST_F(EnergyCli, BestByEnergyAndTheParetoFront) {
  ASSERT_EQ(tune("import " + kNvmlCache).code, 0);
  const ojson raw = raw_json(kNvmlCache);
  Shell t = tune("best --json");
  Shell e = tune("best --objective energy --json");
  ASSERT_EQ(e.code, 0) << e.err;
  const ojson time = ojson::parse(t.out), energy = ojson::parse(e.out);
  EXPECT_EQ(energy["objective"], "energy");
  EXPECT_EQ(time["sizes"][0]["params"]["block_size_x"], 768);
  EXPECT_EQ(energy["sizes"][0]["params"]["block_size_x"], 448);  // the least nvml_energy of the cache
  EXPECT_EQ(energy["sizes"][0]["energy_j"].get<double>(), raw["cache"]["448"]["nvml_energy"].get<double>());
  EXPECT_EQ(energy["sizes"][0]["time_ms"].get<double>(), raw["cache"]["448"]["time"].get<double>());
  Shell text = tune("best --objective energy");
  EXPECT_NE(text.out.find("energy per launch"), std::string::npos) << text.out;

  // The front, computed here from the raw cache: no other entry at most as slow and as costly.
  std::vector<std::string> expected;
  for (const auto& [k, a] : raw["cache"].items()) {
    bool beaten = false;
    for (const auto& [k2, b] : raw["cache"].items())
      beaten = beaten || (k2 != k && b["time"] <= a["time"] && b["nvml_energy"] <= a["nvml_energy"] &&
                          (b["time"] < a["time"] || b["nvml_energy"] < a["nvml_energy"]));
    if (!beaten) expected.push_back(k);
  }
  Shell p = tune("best --pareto --json");
  ASSERT_EQ(p.code, 0) << p.err;
  const ojson front = ojson::parse(p.out)["sizes"];
  ASSERT_EQ(front.size(), 1u);
  std::vector<std::string> got;
  for (const auto& q : front[0]["points"])
    if (q["front"].get<bool>()) got.push_back(q["params"]["block_size_x"].dump());
  std::sort(expected.begin(), expected.end());
  std::sort(got.begin(), got.end());
  EXPECT_EQ(got, expected);
  const double saved = front[0]["energy_saved"].get<double>(), cost = front[0]["time_cost"].get<double>();
  EXPECT_NEAR(saved,
              1 - raw["cache"]["448"]["nvml_energy"].get<double>() / raw["cache"]["768"]["nvml_energy"].get<double>(),
              1e-12);
  EXPECT_NEAR(cost, raw["cache"]["448"]["time"].get<double>() / raw["cache"]["768"]["time"].get<double>() - 1, 1e-12);
  Shell pt = tune("best --pareto");
  EXPECT_NE(pt.out.find("energy saved"), std::string::npos) << pt.out;

  // The runtime table for energy: the energy-optimal configuration, the objective named.
  const std::string table = dir.file("table.json");
  Shell h = tune("header --kernel vector_add --space " + external(kT1) + " --objective energy --table --out " + table);
  ASSERT_EQ(h.code, 0) << h.err;
  const ojson t_json = ojson::parse(store::testing::read_bytes(table));
  EXPECT_EQ(t_json["objective"], "energy");
  EXPECT_EQ(t_json["variants"][0][0], 448) << t_json.dump().substr(0, 400);
}

// A database or cache without energy: every energy option says so in one line, exit 2, and writes
// nothing.
TEST_F(EnergyCli, WithoutEnergyEveryEnergyOptionRefusesInOneLine) {
  ASSERT_EQ(tune("import " + external("kernel_tuner/test/test_cache_file.json")).code, 0);
  const std::string before = store::testing::file_hash(db);
  for (const char* args : {"best --objective energy", "best --pareto", "best --objective edp --json"}) {
    Shell r = tune(args);
    EXPECT_EQ(r.code, 2) << args;
    EXPECT_EQ(lines(r.err), 1u) << args << ": " << r.err;
    EXPECT_NE(r.err.find("no energy measured"), std::string::npos) << r.err;
  }
  Shell bad = tune("best --objective power");
  EXPECT_EQ(bad.code, 2);
  EXPECT_NE(bad.err.find("objective 'power'"), std::string::npos) << bad.err;
  const std::string replay_db = dir.file("replay.db");
  Shell replay = shell(bin + " --space " + external(kT1) + " --replay " +
                       external("kernel_tuner/test/test_cache_file.json") + " --objective energy --db " + replay_db);
  EXPECT_EQ(replay.code, 2) << replay.err;
  EXPECT_EQ(errors(replay.err), 1u) << replay.err;
  EXPECT_NE(replay.err.find("has no nvml_energy"), std::string::npos) << replay.err;
  EXPECT_FALSE(std::filesystem::exists(replay_db));
  EXPECT_EQ(store::testing::file_hash(db), before);
}

// Without a GPU (this machine in CI) or without NVML, a GPU run on energy says so in one line,
// exit 3, and no database appears.
TEST_F(EnergyCli, AnEnergyRunWithoutGpuOrNvmlIsOneLineExitThree) {
  const std::string fresh = dir.file("gpu.db");
  Shell r = shell(bin + " --space " + (kSource / "spaces" / "transpose.json").string() +
                  " --sizes 1024 --objective energy --db " + fresh);
  if (r.code == 0) GTEST_SKIP() << "a GPU with NVML is present: this test is for machines without one";
  EXPECT_EQ(r.code, 3) << r.err;
  EXPECT_EQ(lines(r.err), 1u) << r.err;
  EXPECT_NE(r.err.find("--objective energy measures energy through NVML on a GPU"), std::string::npos) << r.err;
  EXPECT_FALSE(std::filesystem::exists(fresh));
}

// Strategies on an energy cache: a brute-force replay on energy finds the cache's least energy, and
// `tune evaluate` scores a strategy on it.
TEST_F(EnergyCli, ReplayAndEvaluateOnEnergy) {
  Shell r = tune("--space " + external(kT1) + " --replay " + kNvmlCache + " --strategy brute_force --objective energy");
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.out.find("(energy)"), std::string::npos) << r.out;
  Shell best = tune("best --objective energy --json");
  EXPECT_EQ(ojson::parse(best.out)["sizes"][0]["params"]["block_size_x"], 448);
  Shell ev = shell(bin + " evaluate --space " + external(kT1) + " --replay " + kNvmlCache +
                   " --strategy random_sample --repeats 5 --resamples 0 --objective energy --json");
  ASSERT_EQ(ev.code, 0) << ev.err;
  const ojson score = ojson::parse(ev.out);
  EXPECT_TRUE(score.is_object()) << ev.out;
}

}  // namespace
}  // namespace tune::interop

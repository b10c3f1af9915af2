// Bad input to tune evaluate: one line that names the file or the strategy, exit 2, both through
// the module and through the real binary; and a small good run end to end (vector_add, 15
// configurations measured on an RTX A4000).
#include <gtest/gtest.h>

#include "common/error.h"
#include "evaluate/evaluate.h"
#include "interop/test_util.h"

namespace tune::evaluate {
namespace {

using interop::testing::external;
using interop::testing::ojson;
using interop::testing::raw_json;
using interop::testing::shell;
using interop::testing::TempDir;
using interop::testing::tune_binary;

const std::string kVecSpec = external("kernel_tuner/test/test_cache_file_T1_input.json");
const std::string kVecCache = external("kernel_tuner/test/test_cache_file.json");
const std::string kConvSpec = external("benchmark_hub/convolution_milo.json");

template <class F>
std::string input_error(F&& f) {
  try {
    f();
  } catch (const InputError& e) {
    return e.what();
  }
  return "(no InputError)";
}

TEST(Input, StrategyNames) {
  EXPECT_EQ(strategy_specs({"brute_force,random_sample"}, {}).size(), 2u);
  EXPECT_EQ(strategy_specs({"random_sample", "random_sample,brute_force"}, {}).size(), 2u);
  EXPECT_EQ(strategy_specs({"all"}, {}).size(), search::strategy_names().size());
  EXPECT_NE(input_error([] { strategy_specs({"brute_force,nope"}, {}); }).find("'nope'"), std::string::npos);
  EXPECT_NE(input_error([] { strategy_specs({}, {}); }).find("no strategy"), std::string::npos);
  // An option goes to the strategies that read it; one that none reads is an error.
  auto specs = strategy_specs({"brute_force,random_sample"}, {"fraction=0.5"});
  EXPECT_TRUE(specs[0].options.empty());
  EXPECT_EQ(specs[1].options.at("fraction"), "0.5");
  EXPECT_NE(input_error([] { strategy_specs({"brute_force"}, {"fraction=0.5"}); }).find("fraction"), std::string::npos);
  EXPECT_NE(input_error([] { strategy_specs({"random_sample"}, {"fraction"}); }).find("key=value"), std::string::npos);
}

TEST(Input, CachesAndSpecs) {
  EXPECT_EQ(short_name("a/b/dedispersion_milo/MI250X.json.gz"), "dedispersion_milo/MI250X");
  EXPECT_EQ(short_name("test_cache_file.json"), "test_cache_file");
  // A good pair, and the cache paired with the second spec by its parameters.
  auto problems = load_problems({kConvSpec, kVecSpec}, {kVecCache});
  ASSERT_EQ(problems.size(), 1u);
  EXPECT_EQ(problems[0].spec, kVecSpec);
  EXPECT_EQ(problems[0].objective.size(), 15u);
  EXPECT_EQ(problems[0].device, "NVIDIA RTX A4000");

  EXPECT_NE(input_error([] { load_problems({kVecSpec}, {"no/such/cache.json"}); }).find("no/such/cache.json"),
            std::string::npos);
  EXPECT_NE(input_error([] { load_problems({"no/such/spec.json"}, {kVecCache}); }).find("no/such/spec.json"),
            std::string::npos);
  const std::string mismatch = input_error([] { load_problems({kConvSpec}, {kVecCache}); });
  EXPECT_NE(mismatch.find(kVecCache + ": its parameters match none"), std::string::npos) << mismatch;

  // A cache that lacks configurations is no brute-forced cache.
  TempDir dir;
  ojson cache = raw_json(kVecCache);
  const std::string dropped = cache["cache"].begin().key();
  cache["cache"].erase(dropped);
  store::testing::write_bytes(dir.file("partial.json"), cache.dump());
  const std::string partial = input_error([&] { load_problems({kVecSpec}, {dir.file("partial.json")}); });
  EXPECT_NE(partial.find("lacks 1 of the 15 valid configurations"), std::string::npos) << partial;
  EXPECT_NE(partial.find(dropped), std::string::npos) << partial;
}

TEST(Cli, BadInputIsOneLineAndExitTwo) {
  const std::string tune = tune_binary();
  if (tune.empty()) GTEST_SKIP() << "the tune binary is not built beside this test (cmake --build ... --target tune)";
  struct Case {
    std::string args, expect;
  };
  const std::vector<Case> cases = {
      {"--space " + kVecSpec + " --replay missing.json --strategy brute_force", "missing.json: no such file"},
      {"--space " + kVecSpec + " --replay " + kVecCache + " --strategy brute_forse",
       "unknown --strategy 'brute_forse' (did you mean 'brute_force'?)"},
      {"--space " + kConvSpec + " --replay " + kVecCache + " --strategy brute_force", "its parameters match none"},
      {"--space " + kVecSpec + " --replay " + kVecCache + " --strategy brute_force --repeats 0", "--repeats"},
      // issue #16: 10^9 repeats ended in std::bad_alloc (internal error)
      {"--space " + kVecSpec + " --replay " + kVecCache + " --strategy brute_force --repeats 1000000000",
       "--repeats must be from 1 to 10000"},
      {"--space " + kVecSpec + " --replay " + kVecCache + " --strategy brute_force --threads 100000",
       "--threads must be at most 1024"},
      {"--space " + kVecSpec + " --replay " + kVecCache, "no strategy"},
      {"--replay " + kVecCache + " --strategy brute_force", "no search space"},
  };
  for (const auto& c : cases) {
    auto r = shell(tune + " evaluate " + c.args + " --log-level warn");
    EXPECT_EQ(r.code, 2) << c.args << "\n" << r.err;
    EXPECT_NE(r.err.find(c.expect), std::string::npos) << r.err;
    EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
    EXPECT_TRUE(r.out.empty()) << r.out;
  }
}

TEST(Cli, ScoresTheVectorAddCache) {
  const std::string tune = tune_binary();
  if (tune.empty()) GTEST_SKIP() << "the tune binary is not built beside this test (cmake --build ... --target tune)";
  TempDir dir;
  auto r =
      shell(tune + " evaluate --space " + kVecSpec + " --replay " + kVecCache +
            " --strategy brute_force,random_sample --repeats 20 --json --log-level warn --curves " + dir.file("c.csv"));
  ASSERT_EQ(r.code, 0) << r.err;
  const auto j = nlohmann::json::parse(r.out);
  ASSERT_EQ(j["strategies"].size(), 2u);
  EXPECT_EQ(j["caches"][0]["cache"], "test/test_cache_file");
  EXPECT_EQ(j["caches"][0]["configs"], 15);
  EXPECT_EQ(j["strategies"][1]["caches"][0]["cache"], "test/test_cache_file");
  EXPECT_TRUE(j["strategies"][1]["caches"][0]["score"].is_number());
  EXPECT_EQ(j["repeats"], 20);
  const std::string csv = store::testing::read_bytes(dir.file("c.csv"));
  EXPECT_EQ(std::count(csv.begin(), csv.end(), '\n'), 2 * 1000 + 1);

  auto table = shell(tune + " evaluate --space " + kVecSpec + " --replay " + kVecCache +
                     " --strategy random_sample --repeats 5 --log-level warn");
  ASSERT_EQ(table.code, 0) << table.err;
  EXPECT_NE(table.out.find("test/test_cache_file"), std::string::npos) << table.out;
  EXPECT_NE(table.out.find("\nrandom_sample "), std::string::npos) << table.out;
}

}  // namespace
}  // namespace tune::evaluate

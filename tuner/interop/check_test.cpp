// A cache against its T1 spec: the benchmark_hub pairs and Kernel Tuner's own test pair have
// equal key sets; a changed cache or a different spec is reported with counts and examples.
#include <gtest/gtest.h>

#include "interop/interop.h"
#include "interop/test_util.h"

namespace tune::interop {
namespace {

using namespace testing;

struct Pair {
  const char* spec;
  const char* cache;
  std::size_t valid;
};

class SpecPairs : public ::testing::TestWithParam<Pair> {};

TEST_P(SpecPairs, KeySetEqualsTheValidSet) {
  auto spec = spec::load(external(GetParam().spec));
  auto space = space::Space::build(spec);
  ASSERT_EQ(space.size(), GetParam().valid);
  CacheFile cache = read_cache(external(GetParam().cache));
  SpecCheck c = check_against_spec(cache, spec, space);
  EXPECT_TRUE(c.parameters_match()) << c.report();
  EXPECT_TRUE(c.keys_equal()) << c.report();
  EXPECT_EQ(c.matched, GetParam().valid);
  EXPECT_EQ(c.cache_entries, GetParam().valid);
  EXPECT_NE(c.report().find("the key sets are equal"), std::string::npos) << c.report();
}

INSTANTIATE_TEST_SUITE_P(
    Shared, SpecPairs,
    ::testing::Values(
        Pair{"benchmark_hub/convolution_milo.json", "benchmark_hub/convolution_milo/A100.json.gz", 4362},
        Pair{"benchmark_hub/convolution_milo.json", "benchmark_hub/convolution_milo/A4000.json.gz", 4362},
        Pair{"benchmark_hub/convolution_milo.json", "benchmark_hub/convolution_milo/MI250X.json.gz", 4362},
        Pair{"benchmark_hub/dedispersion_milo.json", "benchmark_hub/dedispersion_milo/A100.json.gz", 11130},
        Pair{"benchmark_hub/dedispersion_milo.json", "benchmark_hub/dedispersion_milo/A4000.json.gz", 11130},
        Pair{"benchmark_hub/dedispersion_milo.json", "benchmark_hub/dedispersion_milo/MI250X.json.gz", 11130},
        Pair{"kernel_tuner/test/test_cache_file_T1_input.json", "kernel_tuner/test/test_cache_file.json", 15}));

TEST(SpecCheck, ReportsMissingAndExtraKeysWithExamples) {
  auto spec = spec::load(external("benchmark_hub/convolution_milo.json"));
  auto space = space::Space::build(spec);
  CacheFile cache = read_cache(external("benchmark_hub/convolution_milo/A100.json.gz"));
  const std::string dropped = cache.entries[10].key;
  cache.entries.erase(cache.entries.begin() + 10);
  // A configuration the restrictions forbid: block_size_x * block_size_y above 1024 threads.
  CacheEntry bad = cache.entries[0];
  bad.key = "restricted";
  bad.value["block_size_x"] = 256;
  bad.value["block_size_y"] = 16;
  cache.entries.push_back(bad);
  SpecCheck c = check_against_spec(cache, spec, space);
  EXPECT_TRUE(c.parameters_match());
  EXPECT_FALSE(c.keys_equal());
  EXPECT_EQ(c.missing, 1u);
  EXPECT_EQ(c.extra, 1u);
  EXPECT_EQ(c.matched, 4361u);
  ASSERT_EQ(c.missing_examples.size(), 1u);
  EXPECT_EQ(c.missing_examples[0], dropped);  // keys written as Kernel Tuner writes them
  EXPECT_EQ(c.extra_examples, std::vector<std::string>{"restricted"});
  EXPECT_NE(c.report().find("1 valid configurations missing"), std::string::npos) << c.report();
}

TEST(SpecCheck, DifferentParametersAreNamed) {
  auto spec = spec::load(external("kernel_tuner/test/test_cache_file_T1_input.json"));
  auto space = space::Space::build(spec);
  CacheFile other = read_cache(external("kernel_tuner/test/strategies_test_cache_file.json"));
  SpecCheck c = check_against_spec(other, spec, space);
  ASSERT_FALSE(c.parameters_match());
  EXPECT_NE(c.problems[0].find("parameter names differ"), std::string::npos) << c.problems[0];
  EXPECT_NE(c.problems[0].find("test_string"), std::string::npos) << c.problems[0];

  CacheFile fewer = read_cache(external("kernel_tuner/test/test_cache_file.json"));
  fewer.header["tune_params"]["block_size_x"].erase(0);  // 128 gone from the cache's values
  SpecCheck d = check_parameters(fewer.header["tune_params_keys"], fewer.header["tune_params"], spec);
  ASSERT_EQ(d.problems.size(), 1u);
  EXPECT_NE(d.problems[0].find("only in the spec [128]"), std::string::npos) << d.problems[0];
}

// tune's own export lists only the values its configurations use; a whole sweep of the space
// (every valid configuration present) still matches: the recorded H200 GEMM sweep against its spec.
TEST(SpecCheck, AWholeSweepWithNarrowerValueListsMatches) {
  const fs::path root(TUNE_SOURCE_DIR);
  auto spec = spec::load((root / "spaces/gemm.json").string());
  auto space = space::Space::build(spec);
  CacheFile cache = read_cache((root / "results/recorded/gemm/4096x4096x4096.json.gz").string());
  SpecCheck c = check_against_spec(cache, spec, space);
  EXPECT_FALSE(c.narrower.empty()) << c.report();
  EXPECT_TRUE(c.parameters_match()) << c.report();
  EXPECT_TRUE(c.keys_equal()) << c.report();
  EXPECT_EQ(c.matched, space.size());

  // With one configuration gone, the narrower lists are a problem again (the cache is not whole).
  cache.entries.pop_back();
  SpecCheck d = check_against_spec(cache, spec, space);
  EXPECT_FALSE(d.parameters_match()) << d.report();
  EXPECT_EQ(d.missing, 1u);
}

}  // namespace
}  // namespace tune::interop

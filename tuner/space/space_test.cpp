#include "space/space.h"

#include <gtest/gtest.h>

#include <chrono>
#include <filesystem>
#include <set>

#include "common/test_data.h"

namespace fs = std::filesystem;
using tune::space::Space;

namespace {

std::string doc(const std::string& params, const std::string& conds) {
  return R"({"ConfigurationSpace": {"TuningParameters": )" + params + R"(, "Conditions": )" + conds +
         R"(}, "KernelSpecification": {"Language": "CUDA", "KernelName": "k", "KernelFile": "k.cu",
         "GlobalSize": {"X": "1"}, "LocalSize": {"X": "1"}}})";
}

// Brute force over the Cartesian product, for cross-checking the grouped construction.
std::vector<std::vector<tune::space::Index>> brute(const tune::spec::Spec& s) {
  std::vector<std::vector<tune::space::Index>> out;
  std::size_t n = s.parameters.size();
  std::vector<tune::space::Index> cur(n, 0);
  std::vector<tune::expr::Value> vars(n + 1);
  while (true) {
    for (std::size_t p = 0; p < n; ++p) vars[p] = s.parameters[p].values[cur[p]];
    bool ok = true;
    for (const auto& c : s.conditions) ok = ok && c.program.test(vars);
    if (ok) out.push_back(cur);
    std::size_t p = n;
    while (p > 0 && ++cur[p - 1] == s.parameters[p - 1].values.size()) cur[--p] = 0;
    if (p == 0) break;
  }
  return out;
}
}  // namespace

// Valid counts computed by Python (Kernel Tuner semantics); PROVENANCE.md lists them.
TEST(Space, ValidCountsMatchPython) {
  struct Case {
    const char* file;
    std::uint64_t cartesian;
    std::size_t valid;
  };
  for (const Case& c :
       {Case{"bat/GEMM-CAFF.json", 20736, 10312}, Case{"bat/convolution-CAFF.json", 16896, 6768},
        Case{"bat/pnpoly-CAFF.json", 4092, 4092}, Case{"benchmark_hub/convolution_milo.json", 10240, 4362},
        Case{"benchmark_hub/dedispersion_milo.json", 22272, 11130},
        Case{"kernel_tuner/test/test_cache_file_T1_input.json", 15, 15},
        Case{"kernel_tuner/test/test_T1_input.json", 3145728, 2359296}}) {
    SCOPED_TRACE(c.file);
    auto s = Space::build(tune::spec::load(tune::test_data::file(c.file)));
    EXPECT_EQ(s.cartesian(), c.cartesian);
    EXPECT_EQ(s.size(), c.valid);
  }
}

TEST(Space, EqualsBruteForceInLexicographicOrder) {
  for (const char* f :
       {"bat/GEMM-CAFF.json", "benchmark_hub/convolution_milo.json", "benchmark_hub/dedispersion_milo.json"}) {
    SCOPED_TRACE(f);
    auto spec = tune::spec::load(tune::test_data::file(f));
    auto s = Space::build(spec);
    auto expected = brute(spec);
    ASSERT_EQ(s.size(), expected.size());
    for (std::size_t i = 0; i < s.size(); ++i) {
      auto got = s.indices(i);
      ASSERT_TRUE(std::equal(got.begin(), got.end(), expected[i].begin())) << "configuration " << i;
    }
  }
}

TEST(Space, FindAndSatisfies) {
  auto spec = tune::spec::load(tune::test_data::file("benchmark_hub/convolution_milo.json"));
  auto s = Space::build(spec);
  for (std::size_t i : {std::size_t{0}, s.size() / 3, s.size() - 1}) {
    auto idx = s.indices(i);
    std::vector<tune::space::Index> copy(idx.begin(), idx.end());
    EXPECT_EQ(s.find(copy), i);
    EXPECT_TRUE(s.satisfies(s.config_values(i)));
  }
  // block_size_x=32 with use_padding=1 violates "use_padding==0 or block_size_x % 32 != 0"
  std::vector<tune::space::Index> bad(s.num_params(), 0);
  bad[0] = 1;  // block_size_x = 32
  bad[5] = 1;  // use_padding = 1
  bad[6] = 1;  // use_shmem = 1
  EXPECT_FALSE(s.find(bad).has_value());
  std::vector<tune::expr::Value> vals;
  for (std::size_t p = 0; p < s.num_params(); ++p) vals.push_back(s.values(p)[bad[p]]);
  EXPECT_FALSE(s.satisfies(vals));
}

TEST(Space, ParamsJsonIsCanonical) {
  auto spec = tune::spec::parse(doc(R"([{"Name": "b", "Type": "int", "Values": "[1, 2]"},
      {"Name": "a", "Type": "string", "Values": "['x', 'y']"}, {"Name": "f", "Type": "float", "Values": "[0.5]"}])",
                                    "[]"),
                                "t.json");
  auto s = Space::build(spec);
  ASSERT_EQ(s.size(), 4u);
  EXPECT_EQ(s.params_json(0), R"({"b":1,"a":"x","f":0.5})");
  EXPECT_EQ(s.params_json(3), R"({"b":2,"a":"y","f":0.5})");
}

TEST(Space, ChainedAndCrossGroupConditions) {
  // Two independent groups ({a, c} and {b, d}) interleaved in declaration order.
  auto spec = tune::spec::parse(
      doc(R"J([{"Name": "a", "Type": "int", "Values": "list(range(1, 9))"},
      {"Name": "b", "Type": "int", "Values": "[2**i for i in range(6)]"},
      {"Name": "c", "Type": "int", "Values": "list(range(1, 9))"},
      {"Name": "d", "Type": "int", "Values": "[1, 2, 3]"}])J",
          R"([{"Expression": "4 <= a*c <= 24", "Parameters": ["a", "c"]}, {"Expression": "b % d == 0 or d == 3", "Parameters": ["b", "d"]}])"),
      "t.json");
  auto s = Space::build(spec);
  auto expected = brute(spec);
  ASSERT_EQ(s.size(), expected.size());
  EXPECT_EQ(s.groups(), 2u);
  for (std::size_t i = 0; i < s.size(); ++i) {
    auto got = s.indices(i);
    ASSERT_TRUE(std::equal(got.begin(), got.end(), expected[i].begin()));
  }
}

TEST(SpaceErrors, EmptySpaceIsAnError) {
  auto spec = tune::spec::parse(
      doc(R"([{"Name": "a", "Type": "int", "Values": "[1, 2]"}])", R"([{"Expression": "a > 5", "Parameters": ["a"]}])"),
      "empty.json");
  try {
    Space::build(spec);
    FAIL();
  } catch (const tune::InputError& e) {
    EXPECT_STREQ(e.what(), "empty.json: the conditions leave no valid configuration: the space is empty");
  }
  auto constant = tune::spec::parse(
      doc(R"([{"Name": "a", "Type": "int", "Values": "[1, 2]"}])", R"([{"Expression": "1 > 2", "Parameters": []}])"),
      "const.json");
  EXPECT_THROW(Space::build(constant), tune::InputError);
}

TEST(SpaceErrors, RuntimeErrorNamesTheConfiguration) {
  auto spec = tune::spec::parse(
      doc(R"([{"Name": "a", "Type": "int", "Values": "[0, 1]"}, {"Name": "b", "Type": "int", "Values": "[4]"}])",
          R"([{"Expression": "b % a == 0", "Parameters": ["a", "b"]}])"),
      "div.json");
  try {
    Space::build(spec);
    FAIL();
  } catch (const tune::expr::Error& e) {
    std::string w = e.what();
    EXPECT_NE(w.find("div.json: ConfigurationSpace.Conditions[0].Expression"), std::string::npos) << w;
    EXPECT_NE(w.find("a=0"), std::string::npos) << w;
  }
}

// A costly condition over three parameters of 1000 values each: checked one partial configuration
// at a time it would take hours (the first round found a month). The projection from a sample
// refuses it within seconds, naming the parameters and the projected time.
TEST(SpaceErrors, ASpaceThatWouldTakeTooLongIsRefusedEarly) {
  auto spec = tune::spec::parse(doc(R"J([{"Name": "a", "Type": "int", "Values": "list(range(1000))"},
                                        {"Name": "b", "Type": "int", "Values": "list(range(1000))"},
                                        {"Name": "c", "Type": "int", "Values": "list(range(1000))"}])J",
                                    R"J([{"Expression": "sum(range(2000 + c)) + a + b >= 0"}])J"),
                                "slow.json");
  const auto t0 = std::chrono::steady_clock::now();
  try {
    Space::build(spec);
    FAIL() << "built";
  } catch (const tune::InputError& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find("slow.json: the conditions connecting 3 parameters (a, b, c)"), std::string::npos) << what;
    EXPECT_NE(what.find("project"), std::string::npos) << what;
  }
  EXPECT_LT(std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count(), 20.0);
}

// The "Tune" key of a T1 spec: check kernels, ceilings, and the errors for what is malformed.
// Specs are the shipped transpose space with its "Tune" object (and ProblemSize) replaced.
#include "spec/extension.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "common/error.h"

namespace fs = std::filesystem;
using namespace tune;
using nlohmann::json;

namespace {

const fs::path kTranspose = fs::path(TUNE_SOURCE_DIR) / "spaces" / "transpose.json";

json transpose_json() {
  std::ifstream f(kTranspose);
  return json::parse(f);
}

spec::Spec with_tune(const json& tune, const json& problem_size = json()) {
  json j = transpose_json();
  j["Tune"] = tune;
  if (!problem_size.is_null()) j["KernelSpecification"]["ProblemSize"] = problem_size;
  return spec::parse(j.dump(), kTranspose);
}

// The error message of parse_extension, or "" when it accepts the spec.
std::string error_of(const json& tune, const json& problem_size = json()) {
  try {
    spec::parse_extension(with_tune(tune, problem_size));
  } catch (const InputError& e) {
    return e.what();
  }
  return "";
}

json kernel_ref(const std::string& name) {
  return {{"KernelName", name},
          {"LocalSize", {{"X", "256"}, {"Y", "1"}, {"Z", "1"}}},
          {"GlobalSize", {{"X", "(ProblemSize[1] + 255) // 256"}, {"Y", "1"}, {"Z", "1"}}}};
}

}  // namespace

TEST(Extension, ShippedTransposeTuneKey) {
  auto ext = spec::parse_extension(spec::load(kTranspose));
  EXPECT_TRUE(ext.bytes);
  EXPECT_EQ(ext.ceilings, (std::vector<std::string>{"d2d_copy", "cublas_sgeam"}));
  ASSERT_TRUE(ext.reference);
  EXPECT_EQ(ext.reference->kernel_name, "transpose_reference");
  EXPECT_FALSE(ext.check);
}

TEST(Extension, CheckKernelParsesLikeTheReference) {
  json tune = transpose_json()["Tune"];
  tune["check"] = kernel_ref("transpose_check");
  auto spec = with_tune(tune);
  auto ext = spec::parse_extension(spec);
  ASSERT_TRUE(ext.check);
  EXPECT_EQ(ext.check->kernel_name, "transpose_check");
  for (int d = 0; d < 3; ++d) {
    ASSERT_TRUE(ext.check->block[d]);
    ASSERT_TRUE(ext.check->grid[d]);
  }
  EXPECT_EQ(ext.check->block[0]->json_path, "Tune.check.LocalSize.X");
  EXPECT_EQ(ext.check->grid[0]->json_path, "Tune.check.GlobalSize.X");
  EXPECT_EQ(ext.reference->kernel_name, "transpose_reference");  // the reference stays
}

TEST(Extension, CheckWithoutReferenceIsAnError) {
  json tune = transpose_json()["Tune"];
  tune.erase("reference");
  tune["check"] = kernel_ref("transpose_check");
  const std::string e = error_of(tune);
  EXPECT_NE(e.find(kTranspose.string()), std::string::npos) << e;
  EXPECT_NE(e.find("Tune.check"), std::string::npos) << e;
  EXPECT_NE(e.find("needs Tune.reference"), std::string::npos) << e;
}

TEST(Extension, MalformedCheckNamesTheKey) {
  json tune = transpose_json()["Tune"];
  tune["check"] = {{"KernelName", "c"}, {"LocalSize", {{"X", "32"}}}};
  EXPECT_NE(error_of(tune).find("Tune.check.GlobalSize: expected an object"), std::string::npos) << error_of(tune);
  tune["check"] = "transpose_check";
  EXPECT_NE(error_of(tune).find("Tune.check: expected an object with \"KernelName\""), std::string::npos);
  tune["check"] = kernel_ref("c");
  tune["check"]["GlobalSize"]["X"] = "no_such_name + 1";
  EXPECT_NE(error_of(tune).find("Tune.check.GlobalSize.X"), std::string::npos) << error_of(tune);
}

TEST(Extension, UnknownCeilingListsTheKnownOnes) {
  const std::string e = error_of({{"bytes", "8"}, {"ceilings", {"d2d_copy", "cublas_dgemm"}}});
  EXPECT_NE(e.find("Tune.ceilings: unknown ceiling \"cublas_dgemm\""), std::string::npos) << e;
  EXPECT_NE(
      e.find("(known: d2d_copy, cublas_sgeam, cublas_gemm_tf32, cublas_gemm_bf16x9, cublas_sgemm, cublas_sgemm_argmax, "
             "fp32_peak)"),
      std::string::npos)
      << e;
  EXPECT_NE(error_of({{"ceilings", {42}}}).find("unknown ceiling 42"), std::string::npos);
}

TEST(Extension, ComputeCeilingsAndTheirProblemSize) {
  auto ext = spec::parse_extension(with_tune({{"flops", "2 * ProblemSize[0] * ProblemSize[1] * ProblemSize[2]"},
                                              {"ceilings", {"fp32_peak", "cublas_sgemm_argmax", "cublas_sgemm"}}},
                                             json::array({4096, 4096, 128})));
  EXPECT_EQ(ext.ceilings, (std::vector<std::string>{"fp32_peak", "cublas_sgemm_argmax", "cublas_sgemm"}));
  EXPECT_TRUE(ext.flops);
  // The GEMM ceilings read m, n, k (or n2, n1, dim) from a 3-entry ProblemSize.
  const std::string e = error_of({{"ceilings", {"cublas_sgemm_argmax"}}});
  EXPECT_NE(e.find("Tune.ceilings: cublas_sgemm_argmax needs a ProblemSize of 3 entries (n2, n1, dim)"),
            std::string::npos)
      << e;
  EXPECT_NE(error_of({{"ceilings", {"cublas_sgemm"}}}).find("(m, n, k), the spec's has 2"), std::string::npos);
  EXPECT_EQ(error_of({{"ceilings", {"fp32_peak"}}}), "");  // any ProblemSize
}

TEST(Extension, PolicyOverridesTheDefaults) {
  json tune = transpose_json()["Tune"];
  tune["statistic"] = "median";
  tune["policy"] = {{"tie_margin", 0.02}, {"min_samples", 20}, {"other_contexts", 0}};
  const auto ext = spec::parse_extension(with_tune(tune));
  EXPECT_DOUBLE_EQ(ext.policy.tie_margin, 0.02);
  EXPECT_EQ(ext.policy.min_samples, 20);
  EXPECT_EQ(ext.policy.other_contexts, 0u);
  EXPECT_EQ(ext.policy.statistic, decision::Statistic::median);
  EXPECT_EQ(ext.policy.max_samples, decision::Policy{}.max_samples);  // the rest as by default
  EXPECT_EQ(spec::parse_extension(spec::load(kTranspose)).policy.describe(), decision::Policy{}.describe());
}

TEST(Extension, BadPolicyNamesTheFileAndTheKey) {
  json tune = transpose_json()["Tune"];
  tune["policy"] = {{"tie_margin", 0.9}};
  std::string e = error_of(tune);
  EXPECT_NE(e.find(kTranspose.string() + ": Tune.policy.tie_margin: 0.9 is out of bounds (0..0.5)"), std::string::npos)
      << e;
  tune["policy"] = {{"min_sampels", 5}};
  e = error_of(tune);
  EXPECT_NE(e.find("Tune.policy.min_sampels: not a policy key (did you mean 'min_samples'?)"), std::string::npos) << e;
  tune["policy"] = {{"race_min_rounds", 6}};
  e = error_of(tune);
  EXPECT_NE(e.find("Tune.policy: race_min_rounds 6 exceeds race_max_rounds 4"), std::string::npos) << e;
  tune["policy"] = json::array({1});
  EXPECT_NE(error_of(tune).find("Tune.policy: expected an object"), std::string::npos) << error_of(tune);
}

// Tune.check end to end on the GPU (each test skips without one): a row-argmax space whose keys
// tie often (testdata/check.cu), tuned with tune's own sweep. The check kernel accepts a
// configuration that picks another maximum than the reference, which the element-wise comparison
// refuses, and rejects a wrong or incomplete one with its count and first element; a check kernel
// that rejects the reference's own outputs stops the run. The fp32_peak ceiling is stored per size.
#include <gtest/gtest.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <functional>
#include <map>
#include <sstream>

#include <nlohmann/json.hpp>

#include "common/error.h"
#include "compile/compile.h"
#include "run/device.h"
#include "store/store.h"
#include "store/test_util.h"
#include "tuning/tuner.h"

namespace fs = std::filesystem;
using namespace tune;
using nlohmann::json;

namespace {

const fs::path kSpec = fs::path(TUNE_SOURCE_DIR) / "tuner" / "tuning" / "testdata" / "check.json";

// The test kernels compile for sm_90 without a GPU (CI catches a broken test spec).
TEST(CheckKernels, TestSpecKernelsCompileForSm90) {
  std::ifstream f(kSpec.parent_path() / "check.cu");
  std::stringstream source;
  source << f.rdbuf();
  for (const char* name : {"rowmax", "rowmax_reference", "rowmax_check", "rowmax_reject"})
    for (const char* variant : {"0", "1", "2", "3"}) {
      compile::CompileRequest r;
      r.source = source.str();
      r.source_name = "check.cu";
      r.kernel_name = name;
      r.defines = {{"block_size_x", "128"}, {"variant", variant}};
      r.arch = "sm_90";
      const auto res = compile::compile(r);
      EXPECT_TRUE(res.ok()) << name << " variant " << variant << ":\n" << res.log;
      if (std::string(name) != "rowmax") break;  // the others do not depend on the variant
    }
}

class CheckGpu : public ::testing::Test {
 protected:
  void SetUp() override {
    if (!run::gpu_available()) GTEST_SKIP() << "no GPU: " << run::gpu_unavailable_reason();
  }

  tuning::Options options(const std::string& spec) const {
    tuning::Options o;
    o.space = spec;
    o.db = dir_.file("tuning.db");
    o.sizes_text = "1000,4096";
    o.sizes = sizes::parse(o.sizes_text);
    o.policy = {"warmup=1", "min_samples=5"};
    return o;
  }

  // A copy of the test spec in the scratch directory with its Tune object changed by `edit`
  // (KernelFile made absolute).
  std::string spec_with(const std::function<void(json&)>& edit) const {
    std::ifstream f(kSpec);
    json j = json::parse(f);
    j["KernelSpecification"]["KernelFile"] = (kSpec.parent_path() / "check.cu").string();
    edit(j["Tune"]);
    std::string path = dir_.file("spec.json");
    std::ofstream(path) << j.dump(1);
    return path;
  }

  // (variant, size) -> the stored measurement (both block sizes must agree).
  std::map<std::pair<int, std::int64_t>, store::StoredMeasurement> measured() const {
    auto db = store::Store::open(dir_.file("tuning.db"), store::Store::Mode::read_only);
    store::MeasurementFilter f;
    f.kernel = "rowmax";
    f.ok_only = false;
    std::map<std::pair<int, std::int64_t>, store::StoredMeasurement> out;
    std::size_t n = 0;
    for (auto& m : db.measurements(f)) {
      const int variant = json::parse(m.params)["variant"].get<int>();
      auto key = std::pair{variant, m.size.x()};
      if (out.count(key)) {
        EXPECT_EQ(out[key].status, m.status) << m.params << " at " << m.size.label();
      }
      out[key] = std::move(m);
      ++n;
    }
    EXPECT_EQ(n, 2u * 4u * 2u);  // block sizes x variants x sizes
    return out;
  }

  store::testing::TempDir dir_;
};

TEST_F(CheckGpu, CheckKernelJudgesInsteadOfTheElementwiseComparison) {
  ASSERT_EQ(tuning::tune(options(kSpec.string())), 0);
  auto m = measured();
  for (std::int64_t n : {1000, 4096}) {
    SCOPED_TRACE(n);
    const auto &v0 = m[{0, n}], &v1 = m[{1, n}], &v2 = m[{2, n}], &v3 = m[{3, n}];
    EXPECT_EQ(v0.status, store::MeasurementStatus::ok) << v0.error;
    EXPECT_EQ(v1.status, store::MeasurementStatus::ok) << v1.error;  // another maximum: accepted
    EXPECT_EQ(v2.status, store::MeasurementStatus::verification_failed);
    EXPECT_TRUE(v2.error.starts_with("check kernel rowmax_check: ")) << v2.error;
    EXPECT_NE(v2.error.find(" errors, first at element 0 ('index' "), std::string::npos) << v2.error;
    // The last row left poisoned (-1): exactly one error, there.
    EXPECT_EQ(v3.status, store::MeasurementStatus::verification_failed);
    EXPECT_TRUE(v3.error.starts_with("check kernel rowmax_check: 1 errors, first at element " + std::to_string(n - 1) +
                                     " ('index' -1, reference "))
        << v3.error;
    EXPECT_TRUE(v1.gflops.has_value());
  }
  // fp32_peak is measured and stored at every size of the run.
  auto db = store::Store::open(dir_.file("tuning.db"), store::Store::Mode::read_only);
  const std::string device = m[{0, 1000}].device;
  for (const char* size : {"1000", "4096"}) {
    bool found = false;
    for (const auto& c : db.ceilings(device, std::string(size)))
      if (c.name == "fp32_peak") {
        found = true;
        ASSERT_TRUE(c.gflops.has_value());
        std::printf("fp32_peak at %s: %.0f GFLOP/s (%.4f ms)\n", size, *c.gflops, c.time_ms);
        EXPECT_GT(*c.gflops, 1000.0);
      }
    EXPECT_TRUE(found) << size;
  }
}

TEST_F(CheckGpu, WithoutTheCheckAnotherMaximumFailsTheComparison) {
  ASSERT_EQ(tuning::tune(options(spec_with([](json& t) { t.erase("check"); }))), 0);
  auto m = measured();
  for (std::int64_t n : {1000, 4096}) {
    const auto &v0 = m[{0, n}], &v1 = m[{1, n}];
    EXPECT_EQ(v0.status, store::MeasurementStatus::ok) << v0.error;
    EXPECT_EQ(v1.status, store::MeasurementStatus::verification_failed);
    EXPECT_NE(v1.error.find("'index'"), std::string::npos) << v1.error;
    EXPECT_EQ(v1.error.find("check kernel"), std::string::npos) << v1.error;
  }
}

TEST_F(CheckGpu, ACheckThatRejectsTheReferenceStopsTheRun) {
  const auto o = options(spec_with([](json& t) { t["check"]["KernelName"] = "rowmax_reject"; }));
  try {
    tuning::tune(o);
    FAIL() << "the run went on";
  } catch (const Error& e) {
    EXPECT_NE(
        std::string(e.what()).find("Tune.check: at size 1000 the check kernel rejects the reference's own outputs: "
                                   "check kernel rowmax_reject: 1 errors"),
        std::string::npos)
        << e.what();
  }
}

}  // namespace

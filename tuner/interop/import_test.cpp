// Importing the real Kernel Tuner caches and the T4 file of data/: counts, statuses and
// values read back from the database, checked against the JSON parsed independently.
#include <gtest/gtest.h>

#include <map>

#include "interop/interop.h"
#include "interop/test_util.h"
#include "spec/spec.h"

namespace tune::interop {
namespace {

using namespace testing;
using store::MeasurementStatus;

store::MeasurementFilter all(const std::string& kernel) {
  return {.kernel = kernel, .ok_only = false, .with_samples = true};
}

class EveryCacheImports : public ::testing::TestWithParam<std::string> {};

TEST_P(EveryCacheImports, CountsStatusesAndValues) {
  const std::string file = external(GetParam());
  const ojson json = raw_json(file);
  TempDir dir;
  auto db = store::Store::open(dir.file("t.db"), store::Store::Mode::read_write);
  ImportResult r = import_file(db, file, {});
  const ojson& cache = json["cache"];
  EXPECT_EQ(r.entries, cache.size());
  EXPECT_EQ(r.kernel, json["kernel_name"].get<std::string>());
  const std::string device = json["device_name"].get<std::string>();
  EXPECT_EQ(r.device, device.empty() ? "unknown" : device);
  EXPECT_EQ(r.device_defaulted, device.empty());

  // Statuses: a string "time" is a failure, whatever else the entry holds.
  std::map<MeasurementStatus, std::size_t> expected;
  for (const auto& [k, e] : cache.items()) {
    if (!e["time"].is_string()) {
      ++expected[MeasurementStatus::ok];
    } else if (e["time"] == "CompilationFailedConfig") {
      ++expected[MeasurementStatus::compile_failed];
    } else if (e["time"] == "RuntimeFailedConfig") {
      ++expected[MeasurementStatus::runtime_error];
    } else {
      ++expected[MeasurementStatus::restricted];
    }
  }
  EXPECT_EQ(r.statuses, expected);

  // Every stored value against its entry.
  auto rows = db.measurements(all(r.kernel));
  ASSERT_EQ(rows.size(), cache.size());
  std::map<std::string, const store::StoredMeasurement*> by_key;
  for (const auto& m : rows) by_key[ojson::parse(m.extra)["kernel_tuner"]["key"].get<std::string>()] = &m;
  for (const auto& [key, e] : cache.items()) {
    ASSERT_TRUE(by_key.count(key)) << key;
    const auto& m = *by_key[key];
    EXPECT_EQ(m.size.label(), r.size);
    EXPECT_EQ(m.compile_ms, e["compile_time"].get<double>()) << key;
    EXPECT_EQ(m.benchmark_ms, e["benchmark_time"].get<double>()) << key;
    EXPECT_EQ(m.strategy_time_ms, e["strategy_time"].get<double>()) << key;
    const ojson extra = ojson::parse(m.extra);
    EXPECT_EQ(extra["framework_time"], e["framework_time"]) << key;
    EXPECT_EQ(extra["timestamp"], e["timestamp"]) << key;
    if (e["time"].is_string()) {
      EXPECT_EQ(m.error, e["time"].get<std::string>()) << key;
      continue;
    }
    EXPECT_EQ(m.objective, e["time"].get<double>()) << key;
    // the samples, where the file keeps them (data/'s trimmed caches do not: none then)
    const ojson times = e.contains("times") ? e["times"] : ojson::array();
    ASSERT_EQ(m.samples_ms.size(), times.size()) << key;
    for (std::size_t i = 0; i < m.samples_ms.size(); ++i) EXPECT_EQ(double(m.samples_ms[i]), times[i].get<double>());
    if (e.contains("GFLOP/s")) {
      EXPECT_EQ(m.gflops, e["GFLOP/s"].get<double>()) << key;
    }
    if (e.contains("GB/s")) {
      EXPECT_EQ(m.gbps, e["GB/s"].get<double>()) << key;
    }
  }

  // The header is kept in the run's notes.
  auto run = db.run(*r.run_id);
  ASSERT_TRUE(run);
  EXPECT_EQ(run->kind, store::RunKind::import);
  ojson header = json;
  header.erase("cache");
  EXPECT_EQ(ojson::parse(run->notes)["header"], header);
}

INSTANTIATE_TEST_SUITE_P(Shared, EveryCacheImports, ::testing::ValuesIn(kCaches), [](const auto& info) {
  std::string n = info.param;
  for (char& c : n) c = std::isalnum(static_cast<unsigned char>(c)) ? c : '_';
  return n;
});

TEST(Import, KnownFactsOfTheConvolutionA100Cache) {
  TempDir dir;
  auto db = store::Store::open(dir.file("t.db"), store::Store::Mode::read_write);
  ImportResult r = import_file(db, external("benchmark_hub/convolution_milo/A100.json.gz"), {});
  EXPECT_EQ(r.entries, 4362u);
  EXPECT_EQ(r.size, "4096x4096");
  EXPECT_EQ(r.device, "NVIDIA A100-PCIE-40GB");
  EXPECT_EQ(r.statuses[MeasurementStatus::ok], 4201u);
  EXPECT_EQ(r.statuses[MeasurementStatus::runtime_error] + r.statuses[MeasurementStatus::compile_failed], 161u);
  EXPECT_EQ(r.statuses[MeasurementStatus::compile_failed], 6u);
}

TEST(Import, SameFileTwiceAddsNothing) {
  TempDir dir;
  const std::string db_path = dir.file("t.db");
  const std::string file = external("benchmark_hub/convolution_milo/A4000.json.gz");
  {
    auto db = store::Store::open(db_path, store::Store::Mode::read_write);
    ImportResult first = import_file(db, file, {});
    EXPECT_EQ(first.added, 4362u);
  }
  const std::string before = store::testing::file_hash(db_path);
  auto db = store::Store::open(db_path, store::Store::Mode::read_write);
  ImportResult second = import_file(db, file, {});
  EXPECT_EQ(second.added, 0u);
  EXPECT_EQ(second.replaced, 0u);
  EXPECT_EQ(second.unchanged, 4362u);
  EXPECT_FALSE(second.run_id);
  EXPECT_EQ(db.runs().size(), 1u);
  EXPECT_EQ(db.measurement_count(), 4362);
  EXPECT_EQ(db.integrity_check(), "ok");
}

TEST(Import, EmptyDeviceNameNeedsDeviceOrBecomesUnknown) {
  TempDir dir;
  auto db = store::Store::open(dir.file("t.db"), store::Store::Mode::read_write);
  const std::string file = external("benchmark_hub/convolution_milo/MI250X.json.gz");
  ImportResult named = import_file(db, file, {.device = "AMD Instinct MI250X"});
  EXPECT_EQ(named.device, "AMD Instinct MI250X");
  EXPECT_FALSE(named.device_defaulted);
  ImportResult unnamed = import_file(db, file, {});
  EXPECT_EQ(unnamed.device, "unknown");
  EXPECT_TRUE(unnamed.device_defaulted);
  EXPECT_EQ(unnamed.added, 4362u);  // another device, so new measurements
  EXPECT_EQ(db.devices("convolution_kernel"), (std::vector<std::string>{"AMD Instinct MI250X", "unknown"}));
}

TEST(Import, T4FileHoldsTheSameDataAsTheCache) {
  TempDir dir;
  auto db = store::Store::open(dir.file("t.db"), store::Store::Mode::read_write);
  // The T4 file names no kernel and no device.
  EXPECT_THROW(import_file(db, external("benchmark_hub/convolution_milo/A100_T4.json.gz"), {}), InputError);
  ImportResult t4 = import_file(db, external("benchmark_hub/convolution_milo/A100_T4.json.gz"),
                                {.kernel = "conv_t4", .device = "A100"});
  ImportResult kt =
      import_file(db, external("benchmark_hub/convolution_milo/A100.json.gz"), {.kernel = "conv_kt", .device = "A100"});
  EXPECT_EQ(t4.format, "T4");
  EXPECT_EQ(t4.entries, kt.entries);
  EXPECT_EQ(t4.statuses, kt.statuses);
  EXPECT_EQ(t4.space_hash, kt.space_hash) << "both list every value of every parameter";
  auto a = db.measurements(all("conv_t4"));
  auto b = db.measurements(all("conv_kt"));
  std::map<std::string, const store::StoredMeasurement*> by_params;
  for (const auto& m : b) by_params[m.params] = &m;
  ASSERT_EQ(a.size(), b.size());
  for (const auto& m : a) {
    ASSERT_TRUE(by_params.count(m.params)) << m.params;
    const auto& k = *by_params[m.params];
    EXPECT_EQ(m.status, k.status) << m.params;
    EXPECT_EQ(m.samples_ms, k.samples_ms) << m.params;
    EXPECT_EQ(m.objective, k.objective) << m.params;
    EXPECT_EQ(m.compile_ms, k.compile_ms) << m.params;
    EXPECT_EQ(m.strategy_time_ms, k.strategy_time_ms) << m.params;
    if (m.status != MeasurementStatus::ok) {
      EXPECT_EQ(m.error, k.error) << m.params;
    }
  }
}

TEST(Import, SpaceHashEqualsTheSpecsWhenTheSpecHasNoConditions) {
  auto spec = spec::load(external("kernel_tuner/test/test_cache_file_T1_input.json"));
  ASSERT_TRUE(spec.conditions.empty());
  auto cache = read_cache(external("kernel_tuner/test/test_cache_file.json"));
  EXPECT_EQ(cache_space_hash(cache.header["tune_params_keys"], cache.header["tune_params"]), spec::space_hash(spec));
  // With conditions the hashes differ, and --spec keys the import by the spec's own hash.
  auto conv = spec::load(external("benchmark_hub/convolution_milo.json"));
  ASSERT_FALSE(conv.conditions.empty());
  TempDir dir;
  auto db = store::Store::open(dir.file("t.db"), store::Store::Mode::read_write);
  ImportResult plain = import_file(db, external("benchmark_hub/convolution_milo/A100.json.gz"), {.kernel = "a"});
  ImportResult keyed =
      import_file(db, external("benchmark_hub/convolution_milo/A100.json.gz"), {.kernel = "b", .spec = &conv});
  EXPECT_NE(plain.space_hash, spec::space_hash(conv));
  EXPECT_EQ(keyed.space_hash, spec::space_hash(conv));
  // A spec of another space is refused.
  EXPECT_THROW(import_file(db, external("benchmark_hub/convolution_milo/A100.json.gz"), {.kernel = "c", .spec = &spec}),
               InputError);
}

}  // namespace
}  // namespace tune::interop

// Real data through the store: Kernel Tuner caches measured on real GPUs (data/) are
// stored the way an import would (one batch per file) and read back exactly.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <map>
#include <stdexcept>

#include "common/test_data.h"
#include "store/store.h"
#include "store/test_util.h"

namespace tune::store {
namespace {

using testing::TempDir;

// A file of data/, parsed; a missing file or a failed gzip throws, naming the file.
nlohmann::ordered_json load(const std::string& relative) {
  const std::string path = test_data::file(relative).string();
  std::string text;
  if (path.ends_with(".gz")) {
    FILE* pipe = popen(("gzip -dc '" + path + "'").c_str(), "r");
    if (pipe == nullptr) throw std::runtime_error(path + ": cannot run gzip -dc");
    char buf[65536];
    for (std::size_t n; (n = fread(buf, 1, sizeof buf, pipe)) > 0;) text.append(buf, n);
    if (pclose(pipe) != 0) throw std::runtime_error(path + ": gzip -dc failed");
  } else {
    text = testing::read_bytes(path);
  }
  return nlohmann::ordered_json::parse(text);
}

sizes::Size size_of(const nlohmann::ordered_json& ps) {
  if (ps.is_number()) return sizes::Size::of(ps.get<std::int64_t>());
  std::string text;
  for (const auto& d : ps) {
    text += (text.empty() ? "" : "x") + std::to_string(d.get<std::int64_t>());
  }
  return sizes::Size::parse_label(text);
}

MeasurementStatus status_of(const std::string& failure) {
  if (failure == "CompilationFailedConfig") return MeasurementStatus::compile_failed;
  if (failure == "RuntimeFailedConfig") return MeasurementStatus::runtime_error;
  if (failure == "InvalidConfig") return MeasurementStatus::restricted;
  throw InputError("unknown Kernel Tuner failure " + failure);
}

nlohmann::ordered_json params_of(const nlohmann::ordered_json& cache, const nlohmann::ordered_json& entry) {
  nlohmann::ordered_json params = nlohmann::ordered_json::object();
  for (const auto& key : cache.at("tune_params_keys")) {
    params[key.get<std::string>()] = entry.at(key.get<std::string>());
  }
  return params;
}

// Stores one Kernel Tuner cache as an import run in one batch; throws after `fail_after`
// entries when given, to check that nothing of a failed import remains.
std::int64_t import_cache(Store& s, const nlohmann::ordered_json& cache, std::optional<std::size_t> fail_after = {}) {
  const std::string kernel = cache.at("kernel_name"), device = cache.at("device_name");
  // Caches without a problem size (strategy tests) count as size 1.
  sizes::Size size = cache.contains("problem_size") ? size_of(cache.at("problem_size")) : sizes::Size::of(1);
  auto batch = s.batch();
  RunInfo info;
  info.kind = RunKind::import;
  info.kernel = kernel;
  info.device = device;
  info.spec_path = "kernel_tuner cache";
  std::int64_t run = s.begin_run(info);
  std::size_t done = 0;
  for (const auto& [key, e] : cache.at("cache").items()) {
    if (fail_after && done++ == *fail_after) throw InputError("simulated failure at " + key);
    Measurement m;
    m.config_id = s.upsert_configuration(kernel, "kt", params_of(cache, e));
    m.run_id = run;
    m.device = device;
    m.size = size;
    if (e.at("time").is_string()) {
      m.status = status_of(e.at("time"));
      m.error = e.at("time");
    } else {
      for (const auto& t : e.at("times")) m.samples_ms.push_back(t.get<float>());
      m.objective = e.at("time").get<double>();
      if (e.contains("GFLOP/s")) m.gflops = e.at("GFLOP/s").get<double>();
    }
    m.compile_ms = e.at("compile_time").get<double>();
    m.verification_ms = e.at("verification_time").get<double>();
    m.benchmark_ms = e.at("benchmark_time").get<double>();
    m.strategy_time_ms = e.at("strategy_time").get<double>();
    m.extra = nlohmann::json{{"timestamp", e.at("timestamp")}}.dump();
    s.record(m);
  }
  s.finish_run(run, RunStatus::completed);
  batch.commit();
  return run;
}

double median_of(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  std::size_t n = v.size();
  return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

// Checks every stored row of `run` against the cache it came from.
void expect_matches_cache(Store& s, std::int64_t run, const nlohmann::ordered_json& cache) {
  const std::string kernel = cache.at("kernel_name");
  auto rows = s.measurements({.kernel = kernel, .run_id = run, .ok_only = false, .with_samples = true});
  ASSERT_EQ(rows.size(), cache.at("cache").size());
  std::map<std::string, const StoredMeasurement*> by_params;
  for (const auto& r : rows) by_params[r.params] = &r;
  double best_time = 1e300;
  std::string best_params;
  for (const auto& [key, e] : cache.at("cache").items()) {
    std::string params = canonical_params(params_of(cache, e));
    ASSERT_TRUE(by_params.count(params)) << key;
    const StoredMeasurement& r = *by_params[params];
    EXPECT_EQ(r.compile_ms, e.at("compile_time").get<double>()) << key;
    if (e.at("time").is_string()) {
      EXPECT_NE(r.status, MeasurementStatus::ok) << key;
      EXPECT_EQ(r.error, e.at("time").get<std::string>());
      continue;
    }
    ASSERT_EQ(r.status, MeasurementStatus::ok) << key;
    std::vector<double> times = e.at("times").get<std::vector<double>>();
    ASSERT_EQ(r.samples_ms.size(), times.size()) << key;
    for (std::size_t i = 0; i < times.size(); ++i) {
      // Kernel Tuner's samples are float32 values printed as doubles: stored without loss.
      EXPECT_EQ(static_cast<double>(r.samples_ms[i]), times[i]) << key << " sample " << i;
    }
    EXPECT_DOUBLE_EQ(r.summary->median, median_of(times)) << key;
    EXPECT_EQ(r.objective, e.at("time").get<double>()) << key;
    if (e.contains("GFLOP/s")) {
      EXPECT_EQ(r.gflops, e.at("GFLOP/s").get<double>()) << key;
    }
    if (e.at("time").get<double>() < best_time) {
      best_time = e.at("time").get<double>();
      best_params = params;
    }
  }
  auto ok = s.measurements({.kernel = kernel, .run_id = run});
  ASSERT_FALSE(ok.empty());
  auto best =
      std::min_element(ok.begin(), ok.end(), [](const auto& a, const auto& b) { return *a.objective < *b.objective; });
  EXPECT_EQ(best->params, best_params);
  EXPECT_EQ(*best->objective, best_time);
}

TEST(StoreImportTest, VectorAddCacheRoundTrips) {
  auto cache = load("kernel_tuner/test/test_cache_file.json");
  TempDir dir;
  Store s = Store::open(dir.file("kt.db"), Store::Mode::read_write);
  std::int64_t run = import_cache(s, cache);
  expect_matches_cache(s, run, cache);
  EXPECT_EQ(s.sizes("vector_add"), std::vector<std::string>{"100"});
  EXPECT_EQ(s.devices("vector_add"), std::vector<std::string>{"NVIDIA RTX A4000"});
  EXPECT_EQ(s.run(run)->kind, RunKind::import);
}

TEST(StoreImportTest, MixedTypeParametersKeepTypesAndOrder) {
  auto cache = load("kernel_tuner/test/strategies_test_cache_file.json");
  TempDir dir;
  Store s = Store::open(dir.file("kt.db"), Store::Mode::read_write);
  std::int64_t run = import_cache(s, cache);
  expect_matches_cache(s, run, cache);
  auto rows = s.measurements({.kernel = "vector_add"});
  bool found = std::any_of(rows.begin(), rows.end(), [](const StoredMeasurement& r) {
    return r.params == R"({"block_size_x":128,"test_string":"alg_2","test_single":15,)"
                       R"("test_bool":true,"test_mixed":2.45})";
  });
  EXPECT_TRUE(found) << "cache key 128,alg_2,15,True,2.45 not stored with its JSON types";
}

TEST(StoreImportTest, ConvolutionA100CacheIsOneAllOrNothingBatch) {
  auto cache = load("benchmark_hub/convolution_milo/A100.json.gz");
  TempDir dir;
  Store s = Store::open(dir.file("conv.db"), Store::Mode::read_write);
  EXPECT_THROW(import_cache(s, cache, 3000), InputError);
  EXPECT_EQ(s.measurement_count(), 0);
  EXPECT_TRUE(s.runs().empty());
  EXPECT_TRUE(s.kernels().empty());

  std::int64_t run = import_cache(s, cache);
  expect_matches_cache(s, run, cache);
  std::map<std::string, int> by_status;
  for (const auto& [key, e] : cache.at("cache").items()) {
    by_status[e.at("time").is_string() ? e.at("time").get<std::string>() : "ok"]++;
  }
  auto& db = s.database();
  EXPECT_EQ(db.query_int("SELECT count(*) FROM measurements WHERE status = 'ok'"), by_status["ok"]);
  EXPECT_EQ(db.query_int("SELECT count(*) FROM measurements WHERE status = 'runtime_error'"),
            by_status["RuntimeFailedConfig"]);
  EXPECT_EQ(db.query_int("SELECT count(*) FROM measurements WHERE status = 'compile_failed'"),
            by_status["CompilationFailedConfig"]);
  EXPECT_EQ(s.sizes("convolution_kernel"), std::vector<std::string>{"4096x4096"});
  EXPECT_EQ(s.measured("convolution_kernel", "kt", "NVIDIA A100-PCIE-40GB").size(), cache.at("cache").size());
  EXPECT_EQ(s.integrity_check(), "ok");
}

}  // namespace
}  // namespace tune::store

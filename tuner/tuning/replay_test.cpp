#include "tuning/replay.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>

#include "common/error.h"
#include "interop/interop.h"
#include "store/store.h"
#include "store/test_util.h"

namespace fs = std::filesystem;
using namespace tune;

namespace {
const fs::path kExternal = fs::path(TUNE_SOURCE_DIR) / ".." / "shared" / "external";

tuning::Options options(const fs::path& spec, const fs::path& cache, const fs::path& db) {
  tuning::Options o;
  o.space = spec.string();
  o.replay = {cache.string()};
  o.db = db.string();
  return o;
}

// Replayed evaluations of the database's only run, in evaluation order: (params, objective).
std::vector<std::pair<std::string, double>> evaluations(const fs::path& db) {
  auto s = store::Store::open(db.string(), store::Store::Mode::read_only);
  store::MeasurementFilter f;
  f.kernel = s.kernels().at(0);
  f.ok_only = false;
  auto rows = s.measurements(f);
  std::sort(rows.begin(), rows.end(), [](const auto& a, const auto& b) { return a.eval_order < b.eval_order; });
  std::vector<std::pair<std::string, double>> out;
  for (const auto& r : rows) {
    EXPECT_TRUE(r.replayed);
    EXPECT_TRUE(r.simulated_time_ms.has_value());
    out.emplace_back(r.params, r.objective.value_or(-1));
  }
  return out;
}
}  // namespace

TEST(Replay, BruteForceFindsEachCachesBest) {
  for (const char* name : {"convolution_milo", "dedispersion_milo"})
    for (const char* gpu : {"A100", "A4000", "MI250X"}) {
      SCOPED_TRACE(std::string(name) + "/" + gpu);
      store::testing::TempDir t;
      fs::path cache = kExternal / "benchmark_hub" / name / (std::string(gpu) + ".json.gz");
      ASSERT_EQ(tuning::run_replay(options(kExternal / "benchmark_hub" / (std::string(name) + ".json"), cache, t.path() / "r.db")), 0);
      // the cache's best, straight from the JSON: lowest numeric "time"
      auto file = interop::read_cache(cache);
      double best = INFINITY;
      for (const auto& e : file.entries)
        if (e.value["time"].is_number()) best = std::min(best, e.value["time"].get<double>());
      auto evals = evaluations(t.path() / "r.db");
      EXPECT_EQ(evals.size(), file.entries.size());
      double found = INFINITY;
      for (const auto& [p, obj] : evals)
        if (obj >= 0) found = std::min(found, obj);
      EXPECT_DOUBLE_EQ(found, best);
    }
}

TEST(Replay, SameSeedSameRunAndBudgets) {
  store::testing::TempDir t;
  fs::path spec = kExternal / "benchmark_hub/dedispersion_milo.json";
  fs::path cache = kExternal / "benchmark_hub/dedispersion_milo/A4000.json.gz";
  auto run = [&](const std::string& db, std::uint64_t seed, std::optional<std::int64_t> fevals, std::optional<double> limit) {
    auto o = options(spec, cache, t.path() / db);
    o.strategy = "random_sample";
    o.seed = seed;
    o.max_fevals = fevals;
    o.time_limit_s = limit;
    EXPECT_EQ(tuning::run_replay(o), 0);
    return evaluations(t.path() / db);
  };
  auto a = run("a.db", 5, 100, std::nullopt), b = run("b.db", 5, 100, std::nullopt), c = run("c.db", 6, 100, std::nullopt);
  EXPECT_EQ(a.size(), 100u);
  EXPECT_EQ(a, b);
  EXPECT_NE(a, c);
  // a simulated-time budget: stops once the clock passes 60 s, well before the whole space
  auto s = run("s.db", 5, std::nullopt, 60.0);
  EXPECT_GT(s.size(), 1u);
  EXPECT_LT(s.size(), 11130u);
  auto db = store::Store::open((t.path() / "s.db").string(), store::Store::Mode::read_only);
  store::MeasurementFilter f;
  f.kernel = db.kernels().at(0);
  f.ok_only = false;
  double before_last = 0, last = 0;
  for (const auto& m : db.measurements(f)) {
    if (*m.eval_order == static_cast<std::int64_t>(s.size())) last = *m.simulated_time_ms;
    if (*m.eval_order == static_cast<std::int64_t>(s.size()) - 1) before_last = *m.simulated_time_ms;
  }
  EXPECT_LT(before_last, 60000.0);
  EXPECT_GE(last, before_last);
}

TEST(Replay, MissingValidConfigurationIsAnError) {
  store::testing::TempDir t;
  // the vector_add cache without its last entry
  std::ifstream in(kExternal / "kernel_tuner/test/test_cache_file.json");
  auto doc = nlohmann::ordered_json::parse(in);
  std::string dropped = std::prev(doc["cache"].end()).key();
  doc["cache"].erase(dropped);
  std::ofstream(t.path() / "partial.json") << doc.dump();
  try {
    tuning::run_replay(options(kExternal / "kernel_tuner/test/test_cache_file_T1_input.json", t.path() / "partial.json", t.path() / "r.db"));
    FAIL() << "a missing configuration was not reported";
  } catch (const InputError& e) {
    std::string w = e.what();
    EXPECT_NE(w.find("is missing from the cache"), std::string::npos) << w;
    EXPECT_NE(w.find("\"" + dropped + "\""), std::string::npos) << w;
  }
}

TEST(Replay, CacheOfAnotherSpaceIsRefused) {
  store::testing::TempDir t;
  EXPECT_THROW(tuning::run_replay(options(kExternal / "benchmark_hub/convolution_milo.json",
                                          kExternal / "benchmark_hub/dedispersion_milo/A100.json.gz", t.path() / "r.db")),
               InputError);
}

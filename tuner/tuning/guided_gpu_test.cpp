// A guided search on the GPU (skips without one): bayes_opt over the transpose space at one size
// with a budget, its hinted configurations compiled ahead in the compile pool while it measures
// (CompileAhead::prefetch). Every evaluation is measured and stored once, the budget holds, the same seed
// starts with the same initial sample (after it, the model follows the measurements, which differ
// from run to run on a GPU), and the compile-ahead shows in the binary cache: more kernels
// compiled than measured (guesses the search did not take), none of them measured. The size's
// ceilings, measured while the search waits for compiles (SizeStates::idle_work) or after it, are each
// stored once. The second run compiles in processes of this test binary (compile/processes.h), as
// the tune command does: the same cubins as the first run's threads.
#include <gtest/gtest.h>
#include <sqlite3.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <map>
#include <set>
#include <thread>

#include "compile/pool.h"
#include "compile/processes.h"
#include "run/device.h"
#include "store/store.h"
#include "store/test_util.h"
#include "tuning/tuner.h"

namespace fs = std::filesystem;
using namespace tune;

namespace {

std::int64_t count(const std::string& db, const char* sql) {
  sqlite3* h = nullptr;
  EXPECT_EQ(sqlite3_open_v2(db.c_str(), &h, SQLITE_OPEN_READONLY, nullptr), SQLITE_OK);
  sqlite3_stmt* st = nullptr;
  EXPECT_EQ(sqlite3_prepare_v2(h, sql, -1, &st, nullptr), SQLITE_OK);
  std::int64_t n = -1;
  if (sqlite3_step(st) == SQLITE_ROW) n = sqlite3_column_int64(st, 0);
  sqlite3_finalize(st);
  sqlite3_close(h);
  return n;
}

std::vector<std::string> measured_params(const std::string& db) {
  auto s = store::Store::open(db, store::Store::Mode::read_only);
  store::MeasurementFilter f;
  f.kernel = "transpose";
  f.ok_only = false;
  auto rows = s.measurements(f);
  std::sort(rows.begin(), rows.end(), [](const auto& a, const auto& b) { return a.id < b.id; });
  std::vector<std::string> out;
  out.reserve(rows.size());
  for (const auto& m : rows) out.push_back(m.params);
  return out;
}

std::map<std::string, std::string> cubins(const std::string& db) {
  sqlite3* h = nullptr;
  EXPECT_EQ(sqlite3_open_v2(db.c_str(), &h, SQLITE_OPEN_READONLY, nullptr), SQLITE_OK);
  sqlite3_stmt* st = nullptr;
  EXPECT_EQ(sqlite3_prepare_v2(h, "SELECT key, cubin FROM binaries", -1, &st, nullptr), SQLITE_OK);
  std::map<std::string, std::string> out;
  while (sqlite3_step(st) == SQLITE_ROW)
    out[reinterpret_cast<const char*>(sqlite3_column_text(st, 0))] =
        std::string(static_cast<const char*>(sqlite3_column_blob(st, 1)), sqlite3_column_bytes(st, 1));
  sqlite3_finalize(st);
  sqlite3_close(h);
  return out;
}

}  // namespace

// The entry point of the compile processes the test below starts; skipped when run as a test.
TEST(CompileServerWorker, Serve) {
  if (!compile::serving()) GTEST_SKIP() << "only a compile server started by GuidedGpu runs this";
  std::_Exit(compile::serve());
}

namespace {

TEST(GuidedGpu, CompileAheadMeasuresEachEvaluationOnce) {
  if (!run::gpu_available()) GTEST_SKIP() << "no GPU: " << run::gpu_unavailable_reason();
  store::testing::TempDir dir;
  auto options = [&](const std::string& db) {
    tuning::Options o;
    o.space = (fs::path(TUNE_SOURCE_DIR) / "spaces" / "transpose.json").string();
    o.sizes_text = "2048x2048";
    o.sizes = sizes::parse(o.sizes_text);
    o.db = dir.file(db);
    o.strategy = "bayes_opt";
    o.max_fevals = 24;
    o.seed = 7;
    o.policy = {"min_samples=5"};
    return o;
  };
  ASSERT_EQ(tuning::tune(options("a.db")), 0);
  tuning::Options in_processes = options("b.db");
  in_processes.compile_server = compile::ServerProgram{"/proc/self/exe", {"--gtest_filter=CompileServerWorker.Serve"}};
  ASSERT_EQ(tuning::tune(in_processes), 0);
  const auto a = measured_params(dir.file("a.db")), b = measured_params(dir.file("b.db"));
  EXPECT_EQ(a.size(), 24u);
  EXPECT_EQ(std::set<std::string>(a.begin(), a.end()).size(), a.size());  // each measured once
  ASSERT_GE(b.size(), 5u);
  // bayes_opt's initial sample (5 of a 24-evaluation budget) depends on the seed alone
  EXPECT_EQ(std::vector<std::string>(a.begin(), a.begin() + 5), std::vector<std::string>(b.begin(), b.begin() + 5));
  EXPECT_EQ(count(dir.file("a.db"), "SELECT count(*) FROM measurements WHERE status = 'ok'"), 24);
  const auto compiled = count(dir.file("a.db"), "SELECT count(*) FROM binaries");
  std::printf("guided: 24 measured, %lld kernels compiled (the rest compiled ahead and not taken)\n",
              static_cast<long long>(compiled));
  EXPECT_GT(compiled, 24);
  EXPECT_LE(compiled, 24 + 24 * 32);
  std::size_t same = 0;
  const auto threads = cubins(dir.file("a.db")), processes = cubins(dir.file("b.db"));
  for (const auto& [key, cubin] : processes) {
    if (auto it = threads.find(key); it != threads.end()) {
      EXPECT_EQ(cubin, it->second) << key;
      ++same;
    }
  }
  EXPECT_GE(same, 5u);  // the initial sample's at least
  EXPECT_EQ(count(dir.file("b.db"), "SELECT count(*) FROM measurements WHERE status = 'ok'"), 24);
  for (const char* db : {"a.db", "b.db"}) {  // Tune.ceilings of spaces/transpose.json: d2d_copy, cublas_sgeam
    EXPECT_EQ(count(dir.file(db), "SELECT count(*) FROM ceilings WHERE size = '2048x2048'"), 2) << db;
    EXPECT_EQ(count(dir.file(db), "SELECT count(DISTINCT name) FROM ceilings WHERE size = '2048x2048'"), 2) << db;
  }
  // The compile-ahead guesses a run gave up at its end (compile::CompilePool::abandon) end on their
  // own threads, within a minute.
  for (int i = 0; i < 600 && compile::abandoned_running() > 0; ++i)
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  EXPECT_EQ(compile::abandoned_running(), 0u);
}

}  // namespace

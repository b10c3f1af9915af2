// Checkpointer: while one is alive, commits of the Store are copied into the database file by
// its thread (the main file grows while the Store is still open, the Store's own automatic
// checkpoints are off); afterwards automatic checkpoints are back, and everything is intact.
#include "store/checkpointer.h"

#include <gtest/gtest.h>

#include <chrono>
#include <filesystem>
#include <thread>

#include "store/test_util.h"

namespace tune::store {
namespace {

using testing::TempDir;

void write_batch(Store& s, std::int64_t run, int from, int count) {
  auto batch = s.batch();
  for (int i = from; i < from + count; ++i) {
    Measurement m;
    m.config_id = s.upsert_configuration("k", "h", nlohmann::ordered_json{{"X", i}});
    m.run_id = run;
    m.device = "dev";
    m.size = sizes::Size::of(1024);
    m.samples_ms.assign(32, 1.0f + static_cast<float>(i) / 7);
    m.extra = R"({"framework_time":248.33483365364373,"timestamp":"2023-06-26 13:07:07.553168+00:00"})";
    s.record(m);
  }
  batch.commit();
}

TEST(CheckpointerTest, CopiesCommitsIntoTheDatabaseWhileTheStoreWrites) {
  TempDir dir;
  const std::string path = dir.file("c.db");
  Store s = Store::open(path, Store::Mode::read_write);
  const std::int64_t run = s.begin_run(RunInfo{});
  EXPECT_EQ(s.database().query_int("PRAGMA wal_autocheckpoint"), 1000);
  const auto before = std::filesystem::file_size(path);
  {
    Checkpointer c(s, 8);
    EXPECT_EQ(s.database().query_int("PRAGMA wal_autocheckpoint"), 0);  // the Store's own are off
    for (int b = 0; b < 4; ++b) write_batch(s, run, b * 500, 500);
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(5);
    while (c.checkpoints() == 0 && std::chrono::steady_clock::now() < deadline)
      std::this_thread::sleep_for(std::chrono::milliseconds(5));
    EXPECT_GT(c.checkpoints(), 0);
    EXPECT_GT(std::filesystem::file_size(path), before + 16 * 16384);  // copied while open
  }
  EXPECT_EQ(s.database().query_int("PRAGMA wal_autocheckpoint"), 1000);
  write_batch(s, run, 2000, 10);
  EXPECT_EQ(s.measurement_count(), 2010);
  EXPECT_EQ(s.integrity_check(), "ok");
}

TEST(CheckpointerTest, RestoresTheStoresOwnThreshold) {
  TempDir dir;
  Store s = Store::open(dir.file("t.db"), Store::Mode::read_write);
  s.database().query_int("PRAGMA wal_autocheckpoint = 250");
  { Checkpointer c(s); }
  EXPECT_EQ(s.database().query_int("PRAGMA wal_autocheckpoint"), 250);
}

}  // namespace
}  // namespace tune::store

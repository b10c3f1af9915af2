// store::merge: every kind of row arrives once, ids are mapped, a second merge changes nothing,
// the later measurement wins, and a merge that fails leaves the target as it was.
#include "store/merge.h"

#include <gtest/gtest.h>

#include "common/error.h"
#include "store/test_util.h"

namespace tune::store {
namespace {

using testing::TempDir;

struct Filled {
  std::int64_t run = 0, a = 0, b = 0;
};

// A run of one device with two configurations at two sizes, a ceiling, a decision and a binary.
Filled fill(Store& s, const std::string& device, float base, const std::string& when) {
  Filled f;
  RunInfo info;
  info.spec_path = "spaces/transpose.json";
  info.spec_hash = "h";
  info.kernel = "transpose";
  info.device = device;
  info.started_at = when;
  f.run = s.begin_run(info);
  f.a = s.upsert_configuration("transpose", "space", nlohmann::ordered_json{{"TILE", 32}, {"ROWS", 8}});
  f.b = s.upsert_configuration("transpose", "space", nlohmann::ordered_json{{"TILE", 16}, {"ROWS", 4}});
  for (const std::string size : {"1024x1024", "2048x2048"})
    for (auto [cfg, t] : {std::pair{f.a, base}, std::pair{f.b, base * 2}}) {
      Measurement m;
      m.config_id = cfg;
      m.run_id = f.run;
      m.device = device;
      m.size = sizes::Size::parse_label(size);
      m.samples_ms = {t, t * 1.01f, t * 0.99f};
      m.measured_at = when;
      s.record(m);
    }
  Ceiling c;
  c.run_id = f.run;
  c.device = device;
  c.size = "1024x1024";
  c.name = "d2d_copy";
  c.time_ms = base / 2;
  c.samples_ms = {base / 2};
  c.measured_at = when;
  s.record_ceiling(c);
  Decision d;
  d.run_id = f.run;
  d.kernel = "transpose";
  d.device = device;
  d.size = "1024x1024";
  d.winner_id = f.a;
  d.candidates = {{f.a, base, 0.01, 3, true}, {f.b, base * 2, 0.01, 3, false}};
  d.decided_at = when;
  s.record_decision(d);
  CachedBinary bin;
  bin.key = "key-" + device;
  bin.arch = "sm_90";
  bin.compiler_version = "13.0";
  bin.cubin = {'c', 'u', 'b', 'i', 'n'};
  s.put_binary(bin);
  return f;
}

std::int64_t count(Store& s, const std::string& table) {
  return s.database().query_int("SELECT count(*) FROM " + table);
}

TEST(MergeTest, EveryRowArrivesOnceMappedOntoTheTargetsIds) {
  TempDir dir;
  auto into = Store::open(dir.file("into.db"), Store::Mode::read_write);
  auto from = Store::open(dir.file("from.db"), Store::Mode::read_write);
  fill(into, "GPU A", 1.0f, "2026-01-01T00:00:00.000Z");
  fill(from, "GPU B", 3.0f, "2026-01-02T00:00:00.000Z");
  const MergeCounts c = merge(into, from, {.binaries = true});  // as the ranks of one MPI job do
  EXPECT_EQ(c.runs, 1u);
  EXPECT_EQ(c.measurements, 4u);
  EXPECT_EQ(c.ceilings, 1u);
  EXPECT_EQ(c.decisions, 1u);
  EXPECT_EQ(c.binaries, 1u);
  EXPECT_EQ(count(into, "runs"), 2);
  EXPECT_EQ(count(into, "configurations"), 2);  // the same two configurations, not four
  EXPECT_EQ(count(into, "measurements"), 8);
  // B's measurements, read back from the target, equal the source's (samples included)
  MeasurementFilter f{"transpose"};
  f.device = "GPU B";
  f.with_samples = true;
  auto a = into.measurements(f), b = from.measurements(f);
  ASSERT_EQ(a.size(), b.size());
  for (std::size_t i = 0; i < a.size(); ++i) {
    EXPECT_EQ(a[i].params, b[i].params);
    EXPECT_EQ(a[i].samples_ms, b[i].samples_ms);
    EXPECT_EQ(a[i].objective, b[i].objective);
    EXPECT_EQ(a[i].measured_at, b[i].measured_at);
    EXPECT_EQ(into.run(a[i].run_id)->device, "GPU B");
  }
  auto d = into.decisions("transpose", std::string("GPU B"));
  ASSERT_EQ(d.size(), 1u);
  EXPECT_EQ(*into.configuration_params(d[0].winner_id), "{\"TILE\":32,\"ROWS\":8}");
  EXPECT_EQ(into.ceilings("GPU B").size(), 1u);
  EXPECT_TRUE(into.get_binary("key-GPU B"));
  EXPECT_EQ(into.integrity_check(), "ok");

  // The same file again: nothing new.
  const MergeCounts again = merge(into, from, {.binaries = true});
  EXPECT_EQ(again.runs, 0u);
  EXPECT_EQ(again.measurements, 0u);
  EXPECT_EQ(again.kept, 4u);
  EXPECT_EQ(count(into, "runs"), 2);
  EXPECT_EQ(count(into, "measurements"), 8);
}

TEST(MergeTest, TheLaterMeasurementWinsWhicheverWayRoundTheMerge) {
  TempDir dir;
  auto older = Store::open(dir.file("older.db"), Store::Mode::read_write);
  auto newer = Store::open(dir.file("newer.db"), Store::Mode::read_write);
  fill(older, "GPU A", 1.0f, "2026-01-01T00:00:00.000Z");
  fill(newer, "GPU A", 5.0f, "2026-03-01T00:00:00.000Z");
  auto times = [](Store& s) {
    std::vector<double> out;
    for (const auto& m : s.measurements(MeasurementFilter{"transpose"})) out.push_back(*m.objective);
    return out;
  };
  // newer into older: the newer values replace; older into newer: nothing changes
  EXPECT_EQ(merge(older, newer).measurements, 4u);
  EXPECT_EQ(merge(newer, older).measurements, 0u);
  EXPECT_EQ(times(older), times(newer));
  EXPECT_EQ(count(older, "measurements"), 4);
  EXPECT_EQ(older.decisions("transpose")[0].decided_at, "2026-03-01T00:00:00.000Z");
}

TEST(MergeTest, AFileIsNotMergedIntoItself) {
  TempDir dir;
  auto a = Store::open(dir.file("a.db"), Store::Mode::read_write);
  fill(a, "GPU A", 1.0f, "2026-01-01T00:00:00.000Z");
  auto same = Store::open(dir.file("a.db"), Store::Mode::read_only);
  EXPECT_THROW(merge(a, same), InputError);
  EXPECT_EQ(count(a, "measurements"), 4);
}

TEST(MergeTest, RowsTuneWouldNotWriteAreTheInputsFaultAndChangeNothing) {
  TempDir dir;
  auto into = Store::open(dir.file("into.db"), Store::Mode::read_write);
  auto from = Store::open(dir.file("from.db"), Store::Mode::read_write);
  fill(into, "GPU A", 1.0f, "2026-01-01T00:00:00.000Z");
  fill(from, "GPU B", 3.0f, "2026-01-02T00:00:00.000Z");
  int n = 0;
  for (const std::string bad :
       {"UPDATE measurements SET samples = '[1e999]' WHERE id = 1", "UPDATE ceilings SET samples = '[\"x\"]'",
        "UPDATE decisions SET candidates = '[{\"config_id\": 1}]'"}) {
    const std::string name = "copy" + std::to_string(++n) + ".db";
    auto copy = Store::open(dir.file(name), Store::Mode::read_write);
    merge(copy, from);  // a good copy, then the bad row in it
    copy.database().exec(bad);
    try {
      merge(into, copy);
      ADD_FAILURE() << "merged after: " << bad;
    } catch (const InputError& e) {
      EXPECT_NE(std::string(e.what()).find(name), std::string::npos) << e.what();
    }
    EXPECT_EQ(count(into, "runs"), 1) << bad;
    EXPECT_EQ(count(into, "measurements"), 4) << bad;
  }
}

TEST(MergeTest, RunsMapWhereTheCallerSays) {
  TempDir dir;
  auto into = Store::open(dir.file("into.db"), Store::Mode::read_write);
  auto from = Store::open(dir.file("from.db"), Store::Mode::read_write);
  const Filled mine = fill(into, "GPU A", 1.0f, "2026-01-01T00:00:00.000Z");
  fill(from, "GPU A", 3.0f, "2026-01-02T00:00:00.000Z");
  MergeOptions o;
  o.map_run = [&](const RunInfo&) { return mine.run; };
  const MergeCounts c = merge(into, from, o);
  EXPECT_EQ(c.runs, 0u);
  EXPECT_EQ(count(into, "runs"), 1);
  for (const auto& m : into.measurements(MeasurementFilter{"transpose"})) EXPECT_EQ(m.run_id, mine.run);
}

// A file dated in the future would win every later merge and never be replaced: refused, and the
// target is as it was.
TEST(MergeTest, TimestampsLaterThanNowAreRefused) {
  TempDir dir;
  auto into = Store::open(dir.file("into.db"), Store::Mode::read_write);
  auto future = Store::open(dir.file("future.db"), Store::Mode::read_write);
  fill(into, "GPU A", 1.0f, "2026-01-01T00:00:00.000Z");
  fill(future, "GPU A", 9.0f, "2999-01-01T00:00:00.000Z");
  try {
    merge(into, future);
    FAIL() << "merged";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("dated 2999-01-01T00:00:00.000Z, later than now"), std::string::npos)
        << e.what();
  }
  EXPECT_EQ(count(into, "runs"), 1);
  EXPECT_EQ(into.measurements(MeasurementFilter{"transpose"})[0].measured_at, "2026-01-01T00:00:00.000Z");
}

// Compiled binaries from another database are bytes tune would load and run unverified: `tune
// import` (the default) leaves them, and a run compiles its own.
TEST(MergeTest, CachedBinariesFromElsewhereAreNotMerged) {
  TempDir dir;
  auto into = Store::open(dir.file("into.db"), Store::Mode::read_write);
  auto from = Store::open(dir.file("from.db"), Store::Mode::read_write);
  fill(from, "GPU B", 3.0f, "2026-01-02T00:00:00.000Z");
  const MergeCounts c = merge(into, from);
  EXPECT_EQ(c.measurements, 4u);
  EXPECT_EQ(c.binaries, 0u);
  EXPECT_FALSE(into.get_binary("key-GPU B"));
  EXPECT_EQ(count(into, "binaries"), 0);
}

}  // namespace
}  // namespace tune::store

// Tests of the Store API: runs, configurations, measurements, queries, batches, ceilings,
// flags, the binary cache, and a reader beside a writer.
#include "store/store.h"

#include <gtest/gtest.h>

#include <cmath>

#include "store/schema.h"
#include "store/test_util.h"

namespace tune::store {
namespace {

using testing::TempDir;

class StoreTest : public ::testing::Test {
 protected:
  void SetUp() override {
    RunInfo info;
    info.spec_path = "specs/transpose.json";
    info.spec_hash = "abc123";
    info.kernel = "transpose";
    info.device = "GPU A";
    run_id = store.begin_run(info);
  }

  std::int64_t config(int tile, int rows) {
    nlohmann::ordered_json p;
    p["TILE"] = tile;
    p["BLOCK_ROWS"] = rows;
    return store.upsert_configuration("transpose", "space1", p);
  }

  Measurement ok(std::int64_t cfg, const std::string& size, std::vector<float> samples,
                 const std::string& device = "GPU A") {
    Measurement m;
    m.config_id = cfg;
    m.run_id = run_id;
    m.device = device;
    m.size = sizes::Size::parse_label(size);
    m.samples_ms = std::move(samples);
    return m;
  }

  TempDir dir;
  Store store = Store::open(dir.file("sub/dir/results.db"), Store::Mode::read_write);
  std::int64_t run_id = 0;
};

TEST_F(StoreTest, OpenCreatesDirectoriesAndSetsUpTheConnection) {
  EXPECT_TRUE(std::filesystem::exists(dir.file("sub/dir/results.db")));
  EXPECT_EQ(store.version(), schema_version());
  EXPECT_EQ(store.database().query_int("PRAGMA page_size"), 16384);  // a new file
  auto& db = store.database();
  EXPECT_EQ(db.query_text("PRAGMA journal_mode"), "wal");
  EXPECT_EQ(db.query_int("PRAGMA foreign_keys"), 1);
  EXPECT_EQ(db.query_int("PRAGMA synchronous"), 1);  // NORMAL
  EXPECT_EQ(db.query_int("PRAGMA application_id"), kApplicationId);
  EXPECT_EQ(store.integrity_check(), "ok");
}

TEST_F(StoreTest, RunRoundTripsAndFinishes) {
  auto r = store.run(run_id);
  ASSERT_TRUE(r);
  EXPECT_EQ(r->spec_path, "specs/transpose.json");
  EXPECT_EQ(r->kernel, "transpose");
  EXPECT_EQ(r->status, RunStatus::running);
  EXPECT_EQ(r->kind, RunKind::gpu);
  EXPECT_FALSE(r->ended_at);
  ASSERT_EQ(r->started_at.size(), 24u) << r->started_at;  // 2025-01-31T12:34:56.789Z
  EXPECT_EQ(r->started_at[10], 'T');
  EXPECT_EQ(r->started_at.back(), 'Z');

  store.finish_run(run_id, RunStatus::interrupted);
  r = store.run(run_id);
  EXPECT_EQ(r->status, RunStatus::interrupted);
  ASSERT_TRUE(r->ended_at);
  EXPECT_GE(*r->ended_at, r->started_at);
  EXPECT_THROW(store.finish_run(run_id + 100, RunStatus::completed), Error);
  EXPECT_FALSE(store.run(run_id + 100));

  RunInfo bad;
  bad.budget = "{max_fevals: 3}";
  EXPECT_THROW(store.begin_run(bad), InputError);
  EXPECT_EQ(store.runs().size(), 1u);
}

TEST_F(StoreTest, ConfigurationsAreCanonicalAndUnique) {
  std::int64_t a = config(32, 8);
  EXPECT_EQ(config(32, 8), a);
  EXPECT_EQ(store.upsert_configuration_text("transpose", "space1", "{ \"TILE\": 32,\n \"BLOCK_ROWS\": 8 }"), a);
  EXPECT_EQ(store.configuration_params(a), R"({"TILE":32,"BLOCK_ROWS":8})");
  // Declaration order is part of the identity, as are the kernel and the space.
  EXPECT_NE(store.upsert_configuration_text("transpose", "space1", R"({"BLOCK_ROWS":8,"TILE":32})"), a);
  EXPECT_NE(store.upsert_configuration_text("transpose", "space2", R"({"TILE":32,"BLOCK_ROWS":8})"), a);
  EXPECT_NE(config(16, 8), a);
  EXPECT_THROW(store.upsert_configuration_text("transpose", "space1", "[1,2]"), InputError);
  EXPECT_THROW(store.upsert_configuration_text("transpose", "space1", "{\"TILE\":"), InputError);
  EXPECT_EQ(store.database().query_int("SELECT count(*) FROM configurations"), 4);
}

TEST_F(StoreTest, MeasurementRoundTripsWithSummary) {
  std::int64_t cfg = config(32, 8);
  Measurement m = ok(cfg, "4096x2048", {0.3f, 0.1f, 0.2f, 0.4f});
  m.gbps = 812.5;
  m.compile_ms = 120;
  m.extra = R"({"registers":32})";
  m.eval_order = 7;
  std::int64_t id = store.record(m);

  auto rows = store.measurements({.kernel = "transpose", .with_samples = true});
  ASSERT_EQ(rows.size(), 1u);
  const StoredMeasurement& r = rows[0];
  EXPECT_EQ(r.id, id);
  EXPECT_EQ(r.params, R"({"TILE":32,"BLOCK_ROWS":8})");
  EXPECT_EQ(r.size, sizes::Size::of(4096, 2048));
  EXPECT_EQ(r.samples_ms, m.samples_ms);  // float32 values come back bit-exact
  ASSERT_TRUE(r.summary);
  EXPECT_EQ(r.summary->count, 4);
  EXPECT_DOUBLE_EQ(r.summary->median, (double{0.2f} + double{0.3f}) / 2);
  EXPECT_DOUBLE_EQ(r.summary->min, double{0.1f});
  EXPECT_DOUBLE_EQ(r.summary->max, double{0.4f});
  EXPECT_NEAR(r.summary->stddev, 0.1290994, 1e-6);  // sample stddev of 0.1..0.4
  EXPECT_EQ(r.objective, r.summary->mean);          // objective defaults to the mean (Kernel Tuner's time)
  EXPECT_EQ(r.gbps, 812.5);
  EXPECT_EQ(r.gflops, std::nullopt);
  EXPECT_EQ(r.compile_ms, 120);
  EXPECT_EQ(r.extra, R"({"registers":32})");
  EXPECT_EQ(r.eval_order, 7);
  EXPECT_FALSE(r.replayed);
  EXPECT_EQ(r.run_id, run_id);
  EXPECT_TRUE(store.has_measurement(cfg, "GPU A", "4096x2048"));
  EXPECT_FALSE(store.has_measurement(cfg, "GPU B", "4096x2048"));
  EXPECT_FALSE(store.has_measurement(cfg, "GPU A", "4096"));
}

TEST_F(StoreTest, RecordingAgainReplacesTheMeasurement) {
  std::int64_t cfg = config(32, 8);
  std::int64_t first = store.record(ok(cfg, "1024", {2.0f}));
  std::int64_t second = store.record(ok(cfg, "1024", {1.0f, 1.5f}));
  EXPECT_EQ(first, second);
  EXPECT_EQ(store.measurement_count(), 1);
  auto rows = store.measurements({.kernel = "transpose"});
  ASSERT_EQ(rows.size(), 1u);
  EXPECT_DOUBLE_EQ(rows[0].summary->median, 1.25);
  EXPECT_EQ(rows[0].samples_ms, std::vector<float>{});  // not loaded without with_samples
}

TEST_F(StoreTest, FailedMeasurementsAreStoredButNotOk) {
  std::int64_t cfg = config(64, 2);
  Measurement bad = ok(cfg, "1024", {});
  EXPECT_THROW(store.record(bad), Error);  // ok without any timing is refused
  bad.status = MeasurementStatus::compile_failed;
  bad.error = "too much shared memory";
  store.record(bad);
  store.record(ok(config(32, 8), "1024", {1.0f}));

  EXPECT_EQ(store.measurements({.kernel = "transpose"}).size(), 1u);
  auto all = store.measurements({.kernel = "transpose", .ok_only = false});
  ASSERT_EQ(all.size(), 2u);
  auto failed = all[0].status == MeasurementStatus::ok ? all[1] : all[0];
  EXPECT_EQ(failed.status, MeasurementStatus::compile_failed);
  EXPECT_EQ(failed.error, "too much shared memory");
  EXPECT_FALSE(failed.summary);
  EXPECT_FALSE(failed.objective);
  // A re-run skips failed configurations too.
  EXPECT_EQ(store.measured("transpose", "space1", "GPU A").size(), 2u);
}

TEST_F(StoreTest, RejectsDanglingReferencesAndBadValues) {
  EXPECT_THROW(store.record(ok(9999, "1024", {1.0f})), Error);  // no such configuration
  Measurement m = ok(config(32, 8), "1024", {1.0f});
  m.run_id = 9999;
  EXPECT_THROW(store.record(m), Error);  // no such run
  m.run_id = run_id;
  m.samples_ms = {1.0f};
  m.extra = "not json";
  EXPECT_THROW(store.record(m), InputError);
  EXPECT_EQ(store.measurement_count(), 0);
}

// Issue #16: a time that is not a time (NaN, negative, zero, absurd) is stored as an invalid
// measurement with the reason, never as the best.
TEST_F(StoreTest, InvalidTimesAreStoredAsInvalidWithTheReason) {
  const std::int64_t c = config(32, 8);
  const std::vector<std::vector<float>> bad = {{1.0f, std::nanf("")}, {-1.0f}, {0.0f}, {1e38f}, {INFINITY}};
  for (std::size_t i = 0; i < bad.size(); ++i) {
    Measurement m = ok(c, std::to_string(1024 + i), bad[i]);
    store.record(m);
  }
  Measurement neg = ok(c, "4096", {1.0f});
  neg.objective = -1.0;  // an import's own time
  store.record(neg);
  const auto all = store.measurements({.kernel = "transpose", .ok_only = false, .with_samples = true});
  ASSERT_EQ(all.size(), bad.size() + 1);
  for (const auto& m : all) {
    EXPECT_EQ(m.status, MeasurementStatus::runtime_error) << m.size.label();
    EXPECT_NE(m.error.find("invalid time"), std::string::npos) << m.error;
    EXPECT_FALSE(m.objective.has_value());
    for (float t : m.samples_ms) EXPECT_TRUE(std::isfinite(t));
  }
  EXPECT_TRUE(store.measurements({.kernel = "transpose"}).empty());  // none ranked
}

TEST_F(StoreTest, MeasuredListsStoredWorkPerSpaceAndDevice) {
  std::int64_t a = config(32, 8), b = config(16, 4);
  store.record(ok(a, "1024", {1.0f}));
  store.record(ok(a, "2048", {1.0f}));
  store.record(ok(b, "1024", {1.0f}, "GPU B"));
  std::set<MeasuredKey> expected = {{R"({"TILE":32,"BLOCK_ROWS":8})", "1024"},
                                    {R"({"TILE":32,"BLOCK_ROWS":8})", "2048"}};
  EXPECT_EQ(store.measured("transpose", "space1", "GPU A"), expected);
  EXPECT_EQ(store.measured("transpose", "space1", "GPU B").size(), 1u);
  EXPECT_TRUE(store.measured("transpose", "other-space", "GPU A").empty());
  EXPECT_TRUE(store.measured("copy", "space1", "GPU A").empty());
}

TEST_F(StoreTest, ListsKernelsDevicesAndSizesInNumericOrder) {
  std::int64_t a = config(32, 8);
  for (const char* s : {"4096x2048", "512", "4096", "1024x1024x4", "1024"}) {
    store.record(ok(a, s, {1.0f}));
  }
  store.record(ok(a, "8192", {1.0f}, "GPU B"));
  EXPECT_EQ(store.sizes("transpose"),
            (std::vector<std::string>{"512", "1024", "1024x1024x4", "4096", "4096x2048", "8192"}));
  EXPECT_EQ(store.sizes("transpose", "GPU B"), std::vector<std::string>{"8192"});
  EXPECT_EQ(store.devices(), (std::vector<std::string>{"GPU A", "GPU B"}));
  EXPECT_TRUE(store.devices("copy").empty());
  EXPECT_EQ(store.kernels(), std::vector<std::string>{"transpose"});
  auto at = store.measurements({.kernel = "transpose", .device = "GPU A", .size = "4096"});
  ASSERT_EQ(at.size(), 1u);
  EXPECT_EQ(at[0].size.label(), "4096");
}

TEST_F(StoreTest, BatchIsAllOrNothing) {
  std::int64_t a = config(32, 8), b = config(16, 4);
  try {
    auto batch = store.batch();
    store.record(ok(a, "1024", {1.0f}));
    store.record(ok(b, "1024", {1.0f}));
    store.record(ok(9999, "1024", {1.0f}));  // fails: the whole batch must go
    batch.commit();
  } catch (const Error&) {}
  EXPECT_EQ(store.measurement_count(), 0);
  {
    auto batch = store.batch();
    store.record(ok(a, "1024", {1.0f}));
    store.record(ok(b, "1024", {1.0f}));
    batch.commit();
  }
  EXPECT_EQ(store.measurement_count(), 2);
}

TEST_F(StoreTest, CeilingsAreReplacedPerRunDeviceSizeAndName) {
  store.record_ceiling({run_id, "GPU A", "4096", "d2d_copy", 0.5, 1500.0, {}, {0.5f, 0.6f}, ""});
  store.record_ceiling({run_id, "GPU A", "4096", "d2d_copy", 0.4, 1800.0, {}, {0.4f}, ""});
  store.record_ceiling({run_id, "GPU A", "4096", "cublas_sgeam", 0.7, 1100.0, {}, {}, ""});
  store.record_ceiling({run_id, "GPU A", "8192", "d2d_copy", 1.9, 1700.0, {}, {}, ""});
  auto c = store.ceilings("GPU A", "4096");
  ASSERT_EQ(c.size(), 2u);
  auto copy = c[0].name == "d2d_copy" ? c[0] : c[1];
  EXPECT_EQ(copy.time_ms, 0.4);
  EXPECT_EQ(copy.gbps, 1800.0);
  EXPECT_EQ(copy.samples_ms, std::vector<float>{0.4f});
  EXPECT_EQ(store.ceilings("GPU A").size(), 3u);
  EXPECT_TRUE(store.ceilings("GPU B").empty());
  EXPECT_THROW(store.record_ceiling({9999, "GPU A", "1", "x", 1, {}, {}, {}, ""}), Error);
}

TEST_F(StoreTest, FlagsAreReplacedPerKey) {
  store.record_flag({run_id, "transpose", "GPU A", "4096", FlagKind::dip, "slow", ""});
  store.record_flag({run_id, "transpose", "GPU A", "4096", FlagKind::dip, "slower", ""});
  store.record_flag({std::nullopt, "transpose", "GPU A", "4096", FlagKind::dip, "k1", ""});
  store.record_flag({std::nullopt, "transpose", "GPU A", "4096", FlagKind::dip, "k2", ""});
  store.record_flag({std::nullopt, "transpose", "GPU A", "4096", FlagKind::best_changes, "b", ""});
  auto f = store.flags("transpose");
  ASSERT_EQ(f.size(), 3u);
  int seen = 0;
  for (const Flag& x : f) {
    if (x.kind == FlagKind::dip && x.run_id) seen += x.text == "slower";
    if (x.kind == FlagKind::dip && !x.run_id) seen += x.text == "k2";
  }
  EXPECT_EQ(seen, 2);
  EXPECT_TRUE(store.flags("transpose", "GPU B").empty());
}

TEST_F(StoreTest, BinaryCacheStoresExactBytes) {
  EXPECT_FALSE(store.get_binary("k1"));
  CachedBinary b{"k1", "sm_90", "13.0", "-O3 -DTILE=32", {'\x7f', 'E', 'L', 'F', '\0', '\x02'}, "warning: x", 12.5, ""};
  store.put_binary(b);
  auto got = store.get_binary("k1");
  ASSERT_TRUE(got);
  EXPECT_EQ(got->cubin, b.cubin);
  EXPECT_EQ(got->options, b.options);
  EXPECT_EQ(got->log, "warning: x");
  EXPECT_EQ(got->compile_ms, 12.5);
  EXPECT_FALSE(got->created_at.empty());
  b.cubin = {};
  store.put_binary(b);  // replaces; an empty cubin stays an empty blob, not NULL
  EXPECT_EQ(store.get_binary("k1")->cubin, std::vector<char>{});
}

TEST_F(StoreTest, ReaderSeesCommitsWithoutBlockingTheWriter) {
  std::int64_t a = config(32, 8);
  Store reader = Store::open(dir.file("sub/dir/results.db"), Store::Mode::read_only);
  EXPECT_EQ(reader.measurement_count(), 0);
  {
    auto batch = store.batch();  // the writer holds the write lock
    store.record(ok(a, "1024", {1.0f}));
    EXPECT_EQ(reader.measurement_count(), 0);  // reads the last commit, does not wait
    EXPECT_EQ(reader.kernels(), std::vector<std::string>{"transpose"});
    batch.commit();
  }
  EXPECT_EQ(reader.measurement_count(), 1);
  store.record(ok(a, "2048", {1.0f}));
  EXPECT_EQ(reader.measurements({.kernel = "transpose"}).size(), 2u);
  EXPECT_THROW(reader.record(ok(a, "4096", {1.0f})), Error);
  EXPECT_THROW(reader.database().exec("DELETE FROM measurements"), Error);
  EXPECT_EQ(store.measurement_count(), 2);
}

TEST(SamplesTest, JsonRoundTripIsExactForFloat32) {
  std::vector<float> v = {0.1f, 1e-7f, 3.4028235e38f, 1.17549435e-38f, 1e-45f, 123456.789f, 0.0f};
  std::string text = samples_to_json(v);
  EXPECT_EQ(samples_from_json(text), v);
  EXPECT_EQ(samples_to_json({0.5f, 2.0f}), "[0.5,2]");  // shortest form
  EXPECT_EQ(samples_from_json(" [ ] "), std::vector<float>{});
  EXPECT_THROW(samples_from_json("[1,]"), Error);
  EXPECT_THROW(samples_from_json("[1,\"a\"]"), Error);
  EXPECT_THROW(samples_to_json({INFINITY}), Error);
}

TEST(NamesTest, EnumNamesRoundTrip) {
  for (auto s : {MeasurementStatus::ok, MeasurementStatus::compile_failed, MeasurementStatus::launch_failed,
                 MeasurementStatus::verification_failed, MeasurementStatus::restricted, MeasurementStatus::timeout,
                 MeasurementStatus::runtime_error}) {
    EXPECT_EQ(parse_measurement_status(to_string(s)), s);
  }
  EXPECT_EQ(parse_run_status("interrupted"), RunStatus::interrupted);
  EXPECT_EQ(parse_run_kind("replay"), RunKind::replay);
  EXPECT_EQ(parse_flag_kind("best_changes"), FlagKind::best_changes);
  EXPECT_THROW(parse_measurement_status("fine"), InputError);
}

// A run that failed before anything of it was stored leaves no row (a failed replay left a
// `failed` run); one that stored a measurement is kept.
TEST(StoreRuns, DiscardRemovesOnlyARunNothingRefersTo) {
  TempDir t;
  auto s = Store::open(t.file("d.db"), Store::Mode::read_write);
  RunInfo info;
  info.kernel = "k";
  info.device = "GPU";
  const auto empty = s.begin_run(info), used = s.begin_run(info);
  Measurement m;
  m.config_id = s.upsert_configuration("k", "h", nlohmann::ordered_json{{"a", 1}});
  m.run_id = used;
  m.device = "GPU";
  m.size = sizes::Size::of(64);
  m.samples_ms = {1.0f};
  s.record(m);
  EXPECT_TRUE(s.discard_run(empty));
  EXPECT_FALSE(s.discard_run(used));
  ASSERT_EQ(s.runs().size(), 1u);
  EXPECT_EQ(s.runs()[0].id, used);
}

}  // namespace
}  // namespace tune::store

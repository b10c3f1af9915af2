// Schema version 2 (schema.cpp): a version 1 database is upgraded in place by the first
// read-write open, every row intact (value for value, bit for bit), to the same schema a new
// database gets; a database the upgrade cannot take is left as it was; configurations are
// identified by their key, and a key collision is refused.
#include <gtest/gtest.h>
#include <sqlite3.h>

#include <cstring>
#include <vector>

#include "store/schema.h"
#include "store/store.h"
#include "store/test_util.h"

namespace tune::store {
namespace {

using testing::TempDir;

// Every row of a table, each value as exact text (REALs by their bits).
std::vector<std::string> rows(sqlite::Database& db, const std::string& table, const std::string& columns) {
  sqlite::Statement s = db.prepare("SELECT " + columns + " FROM " + table + " ORDER BY id");
  std::vector<std::string> out;
  while (s.step()) {
    std::string row;
    for (int c = 0; c < s.columns(); ++c) {
      switch (sqlite3_column_type(s.get(), c)) {
        case SQLITE_NULL:
          row += "NULL";
          break;
        case SQLITE_INTEGER:
          row += 'i';
          row += std::to_string(s.int64(c));
          break;
        case SQLITE_FLOAT: {
          const double v = s.real(c);
          std::uint64_t bits = 0;
          std::memcpy(&bits, &v, sizeof bits);
          row += 'r';
          row += std::to_string(bits);
          break;
        }
        default:
          row += 't';
          row += s.text(c);
          break;
      }
      row += '|';
    }
    out.push_back(row);
  }
  return out;
}

std::vector<std::string> schema_of(sqlite::Database& db) {
  sqlite::Statement s =
      db.prepare("SELECT type || ' ' || name || ': ' || ifnull(sql, '') FROM sqlite_schema ORDER BY name");
  std::vector<std::string> out;
  while (s.step()) out.push_back(s.text(0));
  return out;
}

// A version 1 database as tune wrote it: two kernels, failures, replayed rows, NULLs, unicode.
void make_version1(const std::string& path) {
  sqlite::Database db(path, sqlite::Database::Access::read_write_create);
  db.exec("PRAGMA journal_mode = WAL");
  db.exec("BEGIN");
  db.exec(migrations()[0].sql);
  db.exec("PRAGMA user_version = 1");
  db.exec(
      "INSERT INTO runs (spec_path, spec_hash, kernel, device, started_at, strategy_options, kind)"
      " VALUES ('a.json', 'h1', 'transpose', 'GPU A', '2026-01-01T00:00:00.000Z', '{\"T\":1}', 'gpu'),"
      " ('b.json', 'h2', 'gemm', 'GPU B', '2026-01-02T00:00:00.000Z', '{}', 'replay')");
  sqlite::Statement c = db.prepare("INSERT INTO configurations (kernel, space_hash, params) VALUES (?,?,?)");
  sqlite::Statement m = db.prepare(
      "INSERT INTO measurements (config_id, run_id, device, size, size_x, size_y, status, error, samples,"
      " sample_count, median_ms, mean_ms, objective, gbps, extra, eval_order, simulated_time_ms,"
      " strategy_time_ms, replayed, measured_at) VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)");
  for (int i = 0; i < 120; ++i) {
    const bool gemm = i % 3 == 0;
    const std::string params = gemm ? R"({"alg":"é_)" + std::to_string(i) + R"(","f":2.45})"
                                    : R"({"TILE":)" + std::to_string(i) + R"(,"B":true})";
    c.bind_all(gemm ? "gemm" : "transpose", gemm ? "s2" : "s1", params).run();
    c.reset();
    const std::int64_t config = db.last_insert_rowid();
    for (int size : {1024, 2048}) {
      const bool ok = i % 7 != 0;
      const double t = 0.1 + i * 1e-3 + size * 1e-7;
      m.bind_all(config, gemm ? 2 : 1, gemm ? "GPU B" : "GPU A", std::to_string(size) + "x64", size, 64,
                 ok ? "ok" : "compile_failed", ok ? "" : "too much shared memory", ok ? "[0.1,0.25,1e-05]" : "[]",
                 ok ? 3 : 0);
      if (ok) {
        m.bind(11, t).bind(12, t * 1.01).bind(13, t).bind(14, 812.5 / t);
      } else {
        m.bind(11, nullptr).bind(12, nullptr).bind(13, nullptr).bind(14, nullptr);
      }
      m.bind(15, gemm ? R"({"kernel_tuner":{"key":"é"},"framework_time":1.5})" : "{}");
      if (gemm) {
        m.bind(16, i).bind(17, i * 3.25).bind(18, 1e-3).bind(19, 1);
      } else {
        m.bind(16, nullptr).bind(17, nullptr).bind(18, nullptr).bind(19, 0);
      }
      m.bind(20, "2026-01-01T00:00:00.000Z").run();
      m.reset();
    }
  }
  db.exec("COMMIT");
}

const std::string kConfigColumns = "id, kernel, space_hash, params";
// runs as version 1 had them (version 3 adds `timing`)
const std::string kRunColumns =
    "id, spec_path, spec_hash, kernel, device, compute_capability, driver_version, runtime_version, nvrtc_version,"
    " host, command_line, started_at, ended_at, strategy, strategy_options, budget, status, kind, notes";

TEST(StoreMigrateTest, Version1IsUpgradedInPlaceWithEveryRowIntact) {
  TempDir dir;
  const std::string path = dir.file("v1.db");
  make_version1(path);
  std::vector<std::string> runs, configurations, measurements;
  std::string measurement_columns;  // version 1's (version 4 adds the energy columns)
  {
    sqlite::Database raw(path, sqlite::Database::Access::read_only);
    runs = rows(raw, "runs", kRunColumns);
    configurations = rows(raw, "configurations", kConfigColumns);
    measurements = rows(raw, "measurements", "*");
    sqlite::Statement names = raw.prepare("SELECT name FROM pragma_table_info('measurements')");
    while (names.step()) measurement_columns += (measurement_columns.empty() ? "" : ", ") + names.text(0);
  }
  ASSERT_EQ(configurations.size(), 120u);
  ASSERT_EQ(measurements.size(), 240u);
  try {
    Store::open(path, Store::Mode::read_only);
    ADD_FAILURE() << "a version 1 database opened read-only";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("has schema version 1, older than this tune's " +
                                         std::to_string(schema_version()) + "; open it read-write"),
              std::string::npos)
        << e.what();
  }

  Store s = Store::open(path, Store::Mode::read_write);
  EXPECT_EQ(s.version(), schema_version());
  auto& db = s.database();
  EXPECT_EQ(rows(db, "runs", kRunColumns), runs);
  EXPECT_EQ(db.query_int("SELECT count(*) FROM runs WHERE timing = ''"), static_cast<std::int64_t>(runs.size()));
  EXPECT_EQ(rows(db, "configurations", kConfigColumns), configurations);
  EXPECT_EQ(rows(db, "measurements", measurement_columns), measurements);
  // Version 4: no energy was measured before it.
  EXPECT_EQ(db.query_int("SELECT count(*) FROM measurements WHERE energy_j IS NULL AND power_w IS NULL"), 240);
  EXPECT_EQ(db.query_int("SELECT count(*) FROM runs WHERE energy = '' AND idle_power_w IS NULL"),
            static_cast<std::int64_t>(runs.size()));
  sqlite::Statement keys = db.prepare("SELECT kernel, space_hash, params, key FROM configurations");
  while (keys.step()) EXPECT_EQ(keys.int64(3), configuration_key(keys.text(0), keys.text(1), keys.text(2)));
  EXPECT_EQ(s.integrity_check(), "ok");
  EXPECT_FALSE(db.prepare("PRAGMA foreign_key_check").step());
  EXPECT_EQ(db.query_int("PRAGMA foreign_keys"), 1);

  // The same schema as a new database, and the API works on the old rows.
  Store fresh = Store::open(dir.file("new.db"), Store::Mode::read_write);
  EXPECT_EQ(schema_of(db), schema_of(fresh.database()));
  EXPECT_EQ(s.upsert_configuration("transpose", "s1", nlohmann::ordered_json{{"TILE", 1}, {"B", true}}), 2);
  auto stored = s.measurements({.kernel = "gemm", .device = "GPU B", .ok_only = false, .with_samples = true});
  ASSERT_EQ(stored.size(), 80u);
  EXPECT_EQ(s.measured("transpose", "s1", "GPU A").size(), 160u);
}

TEST(StoreMigrateTest, Version1WithDanglingReferencesIsLeftAsItWas) {
  TempDir dir;
  const std::string path = dir.file("v1.db");
  make_version1(path);
  {
    sqlite::Database raw(path, sqlite::Database::Access::read_write);  // foreign keys off
    raw.exec("DELETE FROM configurations WHERE id = 5");
  }
  try {
    Store::open(path, Store::Mode::read_write);
    ADD_FAILURE() << "migrated a database with dangling references";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("database " + path + " cannot be upgraded to schema version 2"),
              std::string::npos)
        << e.what();
  }
  sqlite::Database raw(path, sqlite::Database::Access::read_only);
  EXPECT_EQ(raw.query_int("PRAGMA user_version"), 1);
  EXPECT_EQ(raw.query_int("SELECT count(*) FROM measurements"), 240);
  EXPECT_EQ(raw.query_int("SELECT count(*) FROM sqlite_schema WHERE name LIKE '%_v2'"), 0);
}

TEST(StoreMigrateTest, ConfigurationKeyIsFnv1aOfTheTriple) {
  // FNV-1a 64 of b'transpose\0space1\0{"TILE":32,"BLOCK_ROWS":8}', computed independently.
  EXPECT_EQ(configuration_key("transpose", "space1", R"({"TILE":32,"BLOCK_ROWS":8})"), -8587019571368190803);
  EXPECT_NE(configuration_key("ab", "c", "{}"), configuration_key("a", "bc", "{}"));
}

TEST(StoreMigrateTest, AKeyCollisionIsRefusedInsteadOfConfused) {
  TempDir dir;
  Store s = Store::open(dir.file("s.db"), Store::Mode::read_write);
  const std::string wanted = R"({"X":1})";
  // A different configuration stored under the key of `wanted` (as a 64-bit collision would be).
  auto insert = s.database().prepare("INSERT INTO configurations (kernel, space_hash, params, key) VALUES (?,?,?,?)");
  insert.bind_all("k", "h", R"({"X":2})", configuration_key("k", "h", wanted)).run();
  EXPECT_THROW(s.upsert_configuration("k", "h", nlohmann::ordered_json{{"X", 1}}), Error);
  auto batch = s.batch();  // inside a transaction the INSERT comes first: the same refusal
  EXPECT_THROW(s.upsert_configuration_canonical("k", "h", wanted), Error);
  EXPECT_THROW(s.upsert_configuration_canonical("k", "h", "[1]"), InputError);
  EXPECT_THROW(s.upsert_configuration_canonical("k", "h", "{\"X\":"), InputError);
  EXPECT_EQ(s.upsert_configuration_canonical("k", "h", R"({"X":3})"), 2);
  EXPECT_EQ(s.upsert_configuration_canonical("k", "h", R"({"X":3})"), 2);
}

TEST(StoreMigrateTest, TheSchemaStillRefusesBadValues) {
  TempDir dir;
  Store s = Store::open(dir.file("s.db"), Store::Mode::read_write);
  RunInfo info;
  const std::int64_t run = s.begin_run(info);
  const std::int64_t config = s.upsert_configuration("k", "h", nlohmann::ordered_json{{"X", 1}});
  auto insert = [&](const std::string& status, const std::string& median) {
    s.database().exec(
        "INSERT INTO measurements (config_id, run_id, device, size, size_x, status, median_ms,"
        " measured_at) VALUES (" +
        std::to_string(config) + ", " + std::to_string(run) + ", 'd', '1', 1, '" + status + "', " + median +
        ", 'now')");
  };
  EXPECT_THROW(insert("bogus", "1"), Error);
  EXPECT_THROW(insert("ok", "NULL"), Error);
  insert("timeout", "NULL");
  s.database().exec("DELETE FROM measurements");
  insert("ok", "1");
  EXPECT_THROW(s.database().exec("INSERT INTO measurements (config_id, run_id, device, size, size_x, status,"
                                 " median_ms, measured_at) VALUES (999, 1, 'd', '2', 1, 'ok', 1, 'now')"),
               Error);  // no such configuration: foreign keys are on
  EXPECT_THROW(s.database().exec("UPDATE runs SET strategy_options = 'x'"), Error);  // runs keep json_valid
}

// Version 4: energy per launch, average power and their intervals are stored with the time, and
// read back; a run keeps how it measured energy and the idle baseline; a non-positive energy is
// refused by the schema itself.
TEST(StoreMigrateTest, Version1UpgradedKeepsEnergyWrittenAfterwards) {
  TempDir dir;
  const std::string path = dir.file("v1.db");
  make_version1(path);
  Store s = Store::open(path, Store::Mode::read_write);
  RunInfo info;
  info.spec_path = "spaces/transpose.json";
  info.spec_hash = "h";
  info.kernel = "transpose";
  info.device = "GPU A";
  info.energy = "energy: NVML's total-energy counter";
  info.idle_power_w = 71.5;
  const std::int64_t run = s.begin_run(info);
  ASSERT_EQ(s.run(run)->energy, info.energy);
  ASSERT_EQ(s.run(run)->idle_power_w, 71.5);
  Measurement m;
  m.config_id = s.upsert_configuration("transpose", "s1", nlohmann::ordered_json{{"TILE", 7}});
  m.run_id = run;
  m.device = "GPU A";
  m.size = sizes::Size::parse_label("4096x4096");
  m.samples_ms = {0.036f, 0.0361f, 0.0359f};
  m.energy_j = 0.0152;
  m.energy_hw_j = 0.0003;
  m.power_w = 421.0;
  m.power_hw_w = 8.5;
  s.record(m);
  const auto back = s.measurements({.kernel = "transpose", .device = "GPU A", .size = "4096x4096"});
  ASSERT_EQ(back.size(), 1u);
  EXPECT_EQ(back[0].energy_j, 0.0152);
  EXPECT_EQ(back[0].energy_hw_j, 0.0003);
  EXPECT_EQ(back[0].power_w, 421.0);
  EXPECT_EQ(back[0].power_hw_w, 8.5);
  EXPECT_THROW(s.database().exec("UPDATE measurements SET energy_j = 0 WHERE run_id = " + std::to_string(run)), Error);
}

// Version 3: flags belong to the data. The per-run flags of older versions (each re-run stored the
// same flags again) collapse to the latest of each (kernel, device, size, kind), kernel-wide.
TEST(StoreMigrateTest, PerRunFlagsCollapseToOneFlagOfTheData) {
  TempDir dir;
  const std::string path = dir.file("v1.db");
  make_version1(path);
  {
    sqlite::Database raw(path, sqlite::Database::Access::read_write);
    for (int run : {1, 2})
      for (const char* size : {"256", "512"})
        raw.prepare(
               "INSERT INTO flags (run_id, kernel, device, size, kind, text, created_at)"
               " VALUES (?, 'transpose', 'GPU A', ?, 'best_changes', ?, '2026-01-01T00:00:00.000Z')")
            .bind_all(run, size, std::string("run ") + std::to_string(run))
            .run();
  }
  Store s = Store::open(path, Store::Mode::read_write);
  const auto flags = s.flags("transpose");
  ASSERT_EQ(flags.size(), 2u);
  for (const auto& f : flags) {
    EXPECT_FALSE(f.run_id.has_value());
    EXPECT_EQ(f.text, "run 2");  // the latest
  }
  EXPECT_TRUE(s.decisions("transpose").empty());
  EXPECT_EQ(s.integrity_check(), "ok");
}

}  // namespace
}  // namespace tune::store

// Store::open on good, old, foreign, newer, damaged and unreachable files. Every rejection must
// be a one-line InputError naming the path and the cause, and leave the file byte-for-byte as
// it was (checked by hashing before and after).
#include <gtest/gtest.h>
#include <unistd.h>

#include <random>
#include <regex>

#include "store/schema.h"
#include "store/store.h"
#include "store/test_util.h"

namespace tune::store {
namespace {

using testing::file_hash;
using testing::read_bytes;
using testing::TempDir;
using testing::write_bytes;

// Expects open() to throw an InputError whose message names the path and contains `cause`.
void expect_rejected(const std::string& path, Store::Mode mode, const std::string& cause) {
  try {
    Store::open(path, mode);
    ADD_FAILURE() << "opened " << path;
  } catch (const InputError& e) {
    std::string what = e.what();
    EXPECT_NE(what.find("database " + path), std::string::npos) << what;
    EXPECT_NE(what.find(cause), std::string::npos) << what;
    EXPECT_EQ(what.find('\n'), std::string::npos) << what;
  }
}

// A populated database, closed (so the WAL is checkpointed into the main file).
void make_database(const std::string& path, int rows) {
  Store s = Store::open(path, Store::Mode::read_write);
  RunInfo info;
  info.kernel = "k";
  std::int64_t run = s.begin_run(info);
  auto batch = s.batch();
  for (int i = 0; i < rows; ++i) {
    Measurement m;
    m.config_id = s.upsert_configuration("k", "h", nlohmann::ordered_json{{"X", i}});
    m.run_id = run;
    m.device = "dev";
    m.size = sizes::Size::of(1024);
    m.samples_ms.assign(50, 1.0f + static_cast<float>(i) / 7);
    m.error = std::string(200, 'e');
    s.record(m);
  }
  batch.commit();
}

TEST(StoreOpenTest, ReopenKeepsDataAndVersion) {
  TempDir dir;
  make_database(dir.file("a.db"), 10);
  Store s = Store::open(dir.file("a.db"), Store::Mode::read_write);
  EXPECT_EQ(s.version(), schema_version());
  EXPECT_EQ(s.measurement_count(), 10);
  Store r = Store::open(dir.file("a.db"), Store::Mode::read_only);
  EXPECT_EQ(r.measurement_count(), 10);
}

TEST(StoreOpenTest, EmptyFileIsMigratedToTheCurrentSchema) {
  TempDir dir;
  write_bytes(dir.file("empty.db"), "");
  expect_rejected(dir.file("empty.db"), Store::Mode::read_only, "schema version 0, older");
  EXPECT_EQ(read_bytes(dir.file("empty.db")), "");
  Store s = Store::open(dir.file("empty.db"), Store::Mode::read_write);
  EXPECT_EQ(s.version(), schema_version());
  EXPECT_EQ(s.database().query_int("SELECT count(*) FROM sqlite_schema WHERE type = 'table'"), 7);
}

TEST(StoreOpenTest, ReadOnlyOpenNeverWrites) {
  TempDir dir;
  make_database(dir.file("a.db"), 20);
  std::string before = file_hash(dir.file("a.db"));
  {
    Store r = Store::open(dir.file("a.db"), Store::Mode::read_only);
    EXPECT_EQ(r.measurements({.kernel = "k"}).size(), 20u);
    EXPECT_THROW(r.begin_run(RunInfo{}), Error);
    EXPECT_THROW(r.database().exec("PRAGMA user_version = 5"), Error);
  }
  EXPECT_EQ(file_hash(dir.file("a.db")), before);
}

TEST(StoreOpenTest, ReadOnlyOpenOfMissingFileFailsAndCreatesNothing) {
  TempDir dir;
  expect_rejected(dir.file("none/x.db"), Store::Mode::read_only, "does not exist");
  EXPECT_FALSE(std::filesystem::exists(dir.file("none")));
}

TEST(StoreOpenTest, RandomBytesAreNotADatabase) {
  TempDir dir;
  std::mt19937 rng(12345);
  std::string junk(8192, '\0');
  for (char& c : junk) c = static_cast<char>(rng());
  write_bytes(dir.file("junk.db"), junk);
  std::string before = file_hash(dir.file("junk.db"));
  expect_rejected(dir.file("junk.db"), Store::Mode::read_write, "is not a SQLite database");
  expect_rejected(dir.file("junk.db"), Store::Mode::read_only, "is not a SQLite database");
  EXPECT_EQ(file_hash(dir.file("junk.db")), before);
  EXPECT_FALSE(std::filesystem::exists(dir.file("junk.db-wal")));
}

TEST(StoreOpenTest, TruncatedDatabaseIsCorrupt) {
  TempDir dir;
  make_database(dir.file("a.db"), 300);
  std::string bytes = read_bytes(dir.file("a.db"));
  ASSERT_GT(bytes.size(), 40000u);  // many pages, so the cut removes part of the b-trees
  write_bytes(dir.file("a.db"), bytes.substr(0, bytes.size() / 2));
  std::string before = file_hash(dir.file("a.db"));
  expect_rejected(dir.file("a.db"), Store::Mode::read_write, "is corrupt");
  EXPECT_EQ(file_hash(dir.file("a.db")), before);

  // Cut inside the 100-byte header: not recognisable as a database any more.
  write_bytes(dir.file("b.db"), bytes.substr(0, 60));
  before = file_hash(dir.file("b.db"));
  expect_rejected(dir.file("b.db"), Store::Mode::read_write, "");
  EXPECT_EQ(file_hash(dir.file("b.db")), before);
}

TEST(StoreOpenTest, NewerSchemaIsRefusedUnchanged) {
  TempDir dir;
  const std::string path = dir.file("new.db");
  make_database(path, 3);
  {
    sqlite::Database raw(path, sqlite::Database::Access::read_write);
    raw.exec("PRAGMA user_version = 99");
  }
  std::string before = file_hash(path);
  const std::string message = "database " + path + " has schema version 99, this tune supports " + "up to " +
                              std::to_string(schema_version()) + "; upgrade tune";
  for (auto mode : {Store::Mode::read_write, Store::Mode::read_only}) {
    try {
      Store::open(path, mode);
      ADD_FAILURE() << "opened a newer database";
    } catch (const InputError& e) {
      EXPECT_EQ(std::string(e.what()), message);
    }
  }
  EXPECT_EQ(file_hash(path), before);
}

TEST(StoreOpenTest, NewerSchemaInAPendingWalIsRefusedWithoutCheckpointing) {
  // The newer writer died before checkpointing: its change lives only in the -wal file. Closing
  // our connection must not fold that WAL into the main file.
  TempDir dir;
  const std::string path = dir.file("new.db");
  make_database(path, 3);
  {
    sqlite::Database raw(path, sqlite::Database::Access::read_write);
    raw.set_checkpoint_on_close(false);
    raw.exec("PRAGMA user_version = 7");
  }
  ASSERT_TRUE(std::filesystem::exists(path + "-wal"));
  std::string main_before = file_hash(path), wal_before = file_hash(path + "-wal");
  expect_rejected(path, Store::Mode::read_write, "has schema version 7");
  EXPECT_EQ(file_hash(path), main_before);
  EXPECT_EQ(file_hash(path + "-wal"), wal_before);
}

TEST(StoreOpenTest, ForeignDatabasesAreRefusedUnchanged) {
  TempDir dir;
  {
    sqlite::Database raw(dir.file("other.db"), sqlite::Database::Access::read_write_create);
    raw.exec("CREATE TABLE runs (x); INSERT INTO runs VALUES (1)");
    sqlite::Database app(dir.file("app.db"), sqlite::Database::Access::read_write_create);
    app.exec("PRAGMA application_id = 42; CREATE TABLE t (x)");
  }
  std::string other = file_hash(dir.file("other.db")), app = file_hash(dir.file("app.db"));
  expect_rejected(dir.file("other.db"), Store::Mode::read_write, "not a tune database");
  expect_rejected(dir.file("app.db"), Store::Mode::read_write, "belongs to another program");
  EXPECT_EQ(file_hash(dir.file("other.db")), other);
  EXPECT_EQ(file_hash(dir.file("app.db")), app);
}

TEST(StoreOpenTest, UnwritableLocationsAreInputErrors) {
  // Under a regular file: no directory can be created there, even as root.
  std::string passwd = file_hash("/etc/passwd");
  expect_rejected("/etc/passwd/x.db", Store::Mode::read_write, "cannot be created");
  EXPECT_EQ(file_hash("/etc/passwd"), passwd);
  expect_rejected("/proc/tune-store-test/x.db", Store::Mode::read_write, "cannot be created");
  TempDir dir;
  expect_rejected(dir.path().string(), Store::Mode::read_write, "is a directory");
  expect_rejected("", Store::Mode::read_write, "");
  if (geteuid() != 0) {  // permissions do not bind root
    make_database(dir.file("ro.db"), 1);
    std::filesystem::permissions(dir.file("ro.db"), std::filesystem::perms::owner_read);
    std::string before = file_hash(dir.file("ro.db"));
    expect_rejected(dir.file("ro.db"), Store::Mode::read_write, "is not writable");
    EXPECT_EQ(file_hash(dir.file("ro.db")), before);
  }
}

TEST(StoreOpenTest, TwoWritersShareOneFile) {
  TempDir dir;
  Store a = Store::open(dir.file("s.db"), Store::Mode::read_write);
  Store b = Store::open(dir.file("s.db"), Store::Mode::read_write);
  std::int64_t ca = a.upsert_configuration("k", "h", nlohmann::ordered_json{{"X", 1}});
  std::int64_t cb = b.upsert_configuration("k", "h", nlohmann::ordered_json{{"X", 1}});
  EXPECT_EQ(ca, cb);
  RunInfo info;
  EXPECT_NE(a.begin_run(info), b.begin_run(info));
  EXPECT_EQ(a.runs().size(), 2u);
}

// Every column of every table is described in schema_doc() under its table's heading.
TEST(SchemaTest, DocDescribesEveryTableAndColumn) {
  TempDir dir;
  Store s = Store::open(dir.file("s.db"), Store::Mode::read_write);
  const std::string doc = schema_doc();
  EXPECT_NE(doc.find("schema version " + std::to_string(schema_version())), std::string::npos);
  sqlite::Statement tables =
      s.database().prepare("SELECT name FROM sqlite_schema WHERE type = 'table' AND name NOT LIKE 'sqlite_%'");
  int checked = 0;
  while (tables.step()) {
    std::string table = tables.text(0);
    std::size_t start = doc.find("\n" + table + " -- ");
    ASSERT_NE(start, std::string::npos) << "table " << table << " is not documented";
    std::size_t end = doc.find("\n\n", start + 1);
    std::string section = doc.substr(start, end - start);
    sqlite::Statement cols = s.database().prepare("SELECT name FROM pragma_table_info(?)");
    cols.bind(1, table);
    while (cols.step()) {
      std::regex line("\n  " + cols.text(0) + " +\\S");
      EXPECT_TRUE(std::regex_search(section, line)) << table << "." << cols.text(0);
      ++checked;
    }
  }
  EXPECT_GT(checked, 60);
}

}  // namespace
}  // namespace tune::store

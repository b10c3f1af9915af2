// Tests of the RAII SQLite layer: statements, cached leases, transactions and savepoints.
#include "store/sqlite.h"

#include <gtest/gtest.h>
#include <sqlite3.h>

#include "store/test_util.h"

namespace tune::sqlite {
namespace {

using tune::store::testing::TempDir;

class SqliteTest : public ::testing::Test {
 protected:
  void SetUp() override {
    db = std::make_unique<Database>(dir.file("t.db"), Database::Access::read_write_create);
    db->exec(
        "CREATE TABLE t (id INTEGER PRIMARY KEY, name TEXT NOT NULL UNIQUE, v REAL,"
        " b BLOB)");
  }
  std::int64_t count() { return db->query_int("SELECT count(*) FROM t"); }
  TempDir dir;
  std::unique_ptr<Database> db;
};

TEST_F(SqliteTest, BindsAndReadsEveryType) {
  const char raw[] = {'\0', '\x01', '\xff', 'z'};
  Statement ins = db->prepare("INSERT INTO t (name, v, b) VALUES (?, ?, ?)");
  ins.bind_all(std::string_view("a\0b", 3), 2.5, nullptr);
  ins.run();
  ins.reset();
  ins.bind(1, "second").bind(2, std::optional<double>()).bind_blob(3, raw, sizeof raw).run();

  Statement q = db->prepare("SELECT name, v, b FROM t ORDER BY id");
  ASSERT_TRUE(q.step());
  EXPECT_EQ(q.text(0), std::string("a\0b", 3));  // embedded NUL survives (length-based)
  EXPECT_EQ(q.opt_real(1), 2.5);
  EXPECT_TRUE(q.is_null(2));
  ASSERT_TRUE(q.step());
  EXPECT_EQ(q.text(0), "second");
  EXPECT_EQ(q.opt_real(1), std::nullopt);
  EXPECT_EQ(q.blob(2), std::vector<char>(raw, raw + sizeof raw));
  EXPECT_FALSE(q.step());
}

TEST_F(SqliteTest, ConstraintViolationThrowsWithExtendedCodeAndPath) {
  db->prepare("INSERT INTO t (name) VALUES ('x')").run();
  try {
    db->prepare("INSERT INTO t (name) VALUES ('x')").run();
    FAIL() << "duplicate insert did not throw";
  } catch (const Failure& f) {
    EXPECT_EQ(f.code(), SQLITE_CONSTRAINT_UNIQUE);
    EXPECT_EQ(f.primary(), SQLITE_CONSTRAINT);
    EXPECT_NE(std::string(f.what()).find(dir.file("t.db")), std::string::npos) << f.what();
    EXPECT_NE(std::string(f.what()).find("UNIQUE"), std::string::npos) << f.what();
  }
  EXPECT_THROW(db->prepare("SELEKT 1"), Failure);
}

TEST_F(SqliteTest, LeaseResetsStatementSoNextUseStartsFresh) {
  for (const char* n : {"a", "b", "c"}) {
    db->prepare("INSERT INTO t (name) VALUES (?)").bind(1, n).run();
  }
  const std::string sql = "SELECT name FROM t WHERE name >= ? ORDER BY name";
  {
    auto s = db->cached(sql);
    ASSERT_TRUE(s->bind(1, "a").step());
    EXPECT_EQ(s->text(0), "a");  // left mid-way: the lease must reset it
  }
  auto s = db->cached(sql);
  ASSERT_TRUE(s->bind(1, "b").step());
  EXPECT_EQ(s->text(0), "b");
  // The same text gives the same prepared statement.
  EXPECT_EQ(s->get(), db->cached(sql)->get());
}

TEST_F(SqliteTest, TransactionRollsBackUnlessCommitted) {
  {
    Transaction tx(*db);
    db->exec("INSERT INTO t (name) VALUES ('lost')");
    EXPECT_TRUE(db->in_transaction());
  }
  EXPECT_FALSE(db->in_transaction());
  EXPECT_EQ(count(), 0);
  {
    Transaction tx(*db);
    db->exec("INSERT INTO t (name) VALUES ('kept')");
    tx.commit();
    EXPECT_THROW(tx.commit(), Failure);
  }
  EXPECT_EQ(count(), 1);
}

TEST_F(SqliteTest, NestedTransactionIsASavepoint) {
  Transaction outer(*db);
  db->exec("INSERT INTO t (name) VALUES ('outer')");
  {
    Transaction inner(*db);
    EXPECT_TRUE(inner.nested());
    db->exec("INSERT INTO t (name) VALUES ('inner-undone')");
  }  // only the inner part rolls back
  {
    Transaction inner(*db);
    db->exec("INSERT INTO t (name) VALUES ('inner-kept')");
    inner.commit();
  }
  EXPECT_EQ(count(), 2);
  outer.commit();
  EXPECT_EQ(db->query_text("SELECT group_concat(name, ',') FROM (SELECT name FROM t ORDER BY id)"), "outer,inner-kept");
}

TEST_F(SqliteTest, OuterRollbackUndoesCommittedSavepoints) {
  {
    Transaction outer(*db);
    Transaction inner(*db);
    db->exec("INSERT INTO t (name) VALUES ('x')");
    inner.commit();
  }
  EXPECT_EQ(count(), 0);
}

TEST_F(SqliteTest, ReadOnlyConnectionCannotWrite) {
  Database ro(dir.file("t.db"), Database::Access::read_only);
  EXPECT_TRUE(ro.read_only());
  try {
    ro.exec("INSERT INTO t (name) VALUES ('x')");
    FAIL() << "write through a read-only connection succeeded";
  } catch (const Failure& f) {
    EXPECT_EQ(f.primary(), SQLITE_READONLY);
  }
}

TEST_F(SqliteTest, OpeningMissingFileWithoutCreateFails) {
  try {
    Database missing(dir.file("missing.db"), Database::Access::read_write);
    FAIL() << "opened a missing file";
  } catch (const Failure& f) {
    EXPECT_EQ(f.primary(), SQLITE_CANTOPEN);
  }
  EXPECT_FALSE(std::filesystem::exists(dir.file("missing.db")));
}

TEST_F(SqliteTest, MovedDatabaseKeepsWorking) {
  Database moved = std::move(*db);
  moved.exec("INSERT INTO t (name) VALUES ('m')");
  EXPECT_EQ(moved.query_int("SELECT count(*) FROM t"), 1);
  EXPECT_EQ(db->get(), nullptr);
}

// The machine's state (a full disk, another account's files, a lock held elsewhere) is named as
// such, and main() answers it with exit code 2; a bug's failure (a constraint) is not.
TEST(SqliteFailure, EnvironmentFailuresAreNamed) {
  for (int code : {SQLITE_FULL, SQLITE_READONLY, SQLITE_PERM, SQLITE_CANTOPEN, SQLITE_BUSY, SQLITE_IOERR_SHMOPEN})
    EXPECT_NE(environment_cause(Failure(code, "t.db: writing")), nullptr) << code;
  EXPECT_NE(std::string(environment_cause(Failure(SQLITE_FULL, "x"))).find("disk is full"), std::string::npos);
  for (int code : {SQLITE_CONSTRAINT, SQLITE_MISUSE, SQLITE_ERROR})
    EXPECT_EQ(environment_cause(Failure(code, "t.db: writing")), nullptr) << code;
}

}  // namespace
}  // namespace tune::sqlite

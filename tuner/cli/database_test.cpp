// Issue #16 finding 5 and 6, through the real binary: resume always works (empty, new, older
// databases; concurrent first runs; killed runs), foreign and corrupt files are refused with one
// line, exit 2, and left unchanged.
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <thread>

#include "store/sqlite.h"
#include "store/store.h"
#include "store/test_util.h"

namespace fs = std::filesystem;
using namespace tune;

namespace {

const std::string kSpec = std::string(TUNE_SOURCE_DIR) + "/spaces/transpose.json";
const std::string kCache = std::string(TUNE_SOURCE_DIR) + "/results/recorded/transpose/128x128.json.gz";

struct Result {
  int code = -1;
  std::string out, err;
};

Result tune_cmd(const std::string& args) {
  static int n = 0;
  const fs::path err =
      fs::temp_directory_path() / ("tune_db_err_" + std::to_string(::getpid()) + "_" + std::to_string(n++));
  const std::string cmd = std::string(TUNE_BINARY) + " " + args + " 2>" + err.string();
  Result r;
  FILE* p = ::popen(cmd.c_str(), "r");
  char buf[4096];
  while (p && std::fgets(buf, sizeof buf, p)) r.out += buf;
  const int status = p ? ::pclose(p) : -1;
  r.code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  std::ifstream e(err);
  std::stringstream ss;
  ss << e.rdbuf();
  r.err = ss.str();
  fs::remove(err);
  return r;
}

std::string replay_into(const std::string& db) { return "--space " + kSpec + " --replay " + kCache + " --db " + db; }

}  // namespace

TEST(Resume, AnEmptyDatabaseIsInitialisedByAWriter) {
  store::testing::TempDir t;
  store::testing::write_bytes(t.file("empty.db"), "");
  const Result replay = tune_cmd(replay_into(t.file("empty.db")));
  EXPECT_EQ(replay.code, 0) << replay.err;
  // on the GPU path the database check comes before the GPU: without one it is exit 3, not 2
  store::testing::write_bytes(t.file("empty2.db"), "");
  const Result run = tune_cmd("--space " + kSpec + " --sizes 128 --db " + t.file("empty2.db"));
  EXPECT_NE(run.code, 2) << run.err;
  EXPECT_EQ(run.err.find("schema version 0"), std::string::npos) << run.err;
}

// Two first runs of the same work on one new path: the database is set up once and whole; the
// second either refuses (the first holds the work: issue #44) or, started after the first ended,
// succeeds and stores nothing twice.
TEST(Resume, ConcurrentFirstRunsOnOneNewPathNeverBothFail) {
  for (int trial = 0; trial < 5; ++trial) {
    store::testing::TempDir t;
    const std::string db = t.file("new.db");
    Result a, b;
    std::thread ta([&] { a = tune_cmd(replay_into(db)); });
    std::thread tb([&] { b = tune_cmd(replay_into(db)); });
    ta.join();
    tb.join();
    for (const Result* r : {&a, &b})
      if (r->code != 0) {
        EXPECT_EQ(r->code, 2) << r->err;
        EXPECT_NE(r->err.find("another tune process is tuning kernel"), std::string::npos) << r->err;
      }
    EXPECT_TRUE(a.code == 0 || b.code == 0) << a.err << b.err;
    auto s = store::Store::open(db, store::Store::Mode::read_only);
    EXPECT_EQ(s.integrity_check(), "ok");
    EXPECT_EQ(s.measurement_count(), 397);  // the same 397 configurations, stored once
  }
}

TEST(Resume, AKilledRunIsMarkedInterruptedByTheNextWriter) {
  store::testing::TempDir t;
  const std::string db = t.file("k.db");
  {
    auto s = store::Store::open(db, store::Store::Mode::read_write);
    store::RunInfo info;
    info.kernel = "transpose";
    info.pid = 999999999;  // no such process on this host
    s.begin_run(info);
    EXPECT_EQ(s.runs()[0].status, store::RunStatus::running);
  }
  ASSERT_EQ(tune_cmd(replay_into(db)).code, 0);
  auto s = store::Store::open(db, store::Store::Mode::read_only);
  const auto runs = s.runs();
  ASSERT_EQ(runs.size(), 2u);
  EXPECT_EQ(runs[0].status, store::RunStatus::interrupted);
  EXPECT_TRUE(runs[0].ended_at.has_value());
  EXPECT_EQ(runs[1].status, store::RunStatus::completed);
}

TEST(Foreign, AForeignSqliteFileWithAUserVersionIsRefusedAndUntouched) {
  for (int version : {1, 2, 3}) {
    store::testing::TempDir t;
    const std::string db = t.file("foreign.db");
    {
      sqlite::Database raw(db, sqlite::Database::Access::read_write_create);
      raw.exec("CREATE TABLE notes (id INTEGER PRIMARY KEY, text TEXT); INSERT INTO notes (text) VALUES ('mine');");
      raw.exec("PRAGMA user_version = " + std::to_string(version));
    }
    const std::string before = store::testing::file_hash(db);
    for (const std::string& cmd : {replay_into(db), "best --db " + db, "db --db " + db}) {
      const Result r = tune_cmd(cmd);
      EXPECT_EQ(r.code, 2) << cmd << ": " << r.err;
      EXPECT_NE(r.err.find("not a tune database"), std::string::npos) << r.err;
    }
    EXPECT_EQ(store::testing::file_hash(db), before);
    EXPECT_FALSE(fs::exists(db + "-wal"));  // not switched to WAL
  }
}

TEST(Foreign, ACorruptPageIsExit2WithOneLine) {
  store::testing::TempDir t;
  const std::string db = t.file("c.db");
  ASSERT_EQ(tune_cmd(replay_into(db)).code, 0);
  {  // checkpointed and closed: overwrite a page in the middle of the measurements
    auto s = store::Store::open(db, store::Store::Mode::read_write);
  }
  std::string bytes = store::testing::read_bytes(db);
  ASSERT_GT(bytes.size(), 200000u);
  for (std::size_t i = bytes.size() / 2; i < bytes.size() / 2 + 16384; ++i) bytes[i] = static_cast<char>(0x5A);
  store::testing::write_bytes(db, bytes);
  for (const char* cmd : {"best", "db", "export --format csv --out " /* + path below */}) {
    std::string c = std::string(cmd) + (std::string(cmd).starts_with("export") ? t.file("o.csv") : "") + " --db " + db;
    const Result r = tune_cmd(c);
    EXPECT_TRUE(r.code == 2 || r.code == 0) << c << ": " << r.code << " " << r.err;  // 0: the damage was not read
    EXPECT_EQ(r.err.find("internal error"), std::string::npos) << c << ": " << r.err;
    if (r.code == 2) {
      EXPECT_LE(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
    }
  }
  const Result w = tune_cmd(replay_into(db));  // a writer checks every page first
  EXPECT_EQ(w.code, 2) << w.err;
  EXPECT_NE(w.err.find("corrupt"), std::string::npos) << w.err;
}

// Issue #16: read-only commands open read-only and work on a database the user can only read,
// in a directory it cannot write (SQLite cannot create the -shm file a WAL reader needs there).
TEST(ReadOnly, QueriesWorkOnAFileTheUserCanOnlyRead) {
  if (::geteuid() != 0) GTEST_SKIP() << "needs root to run the commands as another user (setpriv)";
  const std::string as_nobody = "setpriv --reuid=nobody --regid=nogroup --clear-groups ";
  if (std::system((as_nobody + TUNE_BINARY + " --version >/dev/null 2>&1").c_str()) != 0)
    GTEST_SKIP() << "nobody cannot run " << TUNE_BINARY << " here (its directory is private)";
  store::testing::TempDir t;
  const fs::path dir = fs::path(t.file("ro"));
  fs::create_directory(dir);
  const std::string db = (dir / "r.db").string();
  ASSERT_EQ(tune_cmd(replay_into(db)).code, 0);
  const std::string before = store::testing::file_hash(db);
  fs::permissions(db, fs::perms::owner_read | fs::perms::group_read | fs::perms::others_read);
  fs::permissions(dir, fs::perms::owner_read | fs::perms::owner_exec | fs::perms::group_read | fs::perms::group_exec |
                           fs::perms::others_read | fs::perms::others_exec);
  fs::permissions(t.path(), fs::perms::others_exec | fs::perms::others_read, fs::perm_options::add);
  for (const std::string cmd : {"best", "db", "best --json"}) {
    const int code = std::system((as_nobody + TUNE_BINARY + " " + cmd + " --db " + db + " >/dev/null 2>&1").c_str());
    EXPECT_EQ(WEXITSTATUS(code), 0) << cmd;
  }
  fs::permissions(dir, fs::perms::owner_all, fs::perm_options::add);
  EXPECT_EQ(store::testing::file_hash(db), before);
}

// Issue #14: `tune import` of several files is all or nothing: a bad file after good ones is one
// error, exit 2, and the database is unchanged (the good files are not half-imported).
TEST(Import, ABadFileAmongSeveralImportsNothing) {
  store::testing::TempDir t;
  const std::string db = t.file("i.db");
  ASSERT_EQ(tune_cmd(replay_into(db)).code, 0);
  const std::string before = store::testing::file_hash(db);
  const std::string bad = t.file("bad.json");
  store::testing::write_bytes(bad, "[1, 2, 3]");  // JSON, but neither a cache nor T4 results
  const std::string good = std::string(TUNE_SOURCE_DIR) + "/results/recorded/transpose/256x256.json.gz";
  const Result r = tune_cmd("import " + good + " " + bad + " --db " + db);
  EXPECT_EQ(r.code, 2) << r.err;
  EXPECT_NE(r.err.find("bad.json"), std::string::npos) << r.err;
  EXPECT_EQ(r.out, "");  // nothing reported as imported
  EXPECT_EQ(store::testing::file_hash(db), before);
  const Result ok = tune_cmd("import " + good + " --db " + db);
  EXPECT_EQ(ok.code, 0) << ok.err;
  EXPECT_NE(ok.out.find("256x256"), std::string::npos) << ok.out;
}

// Issue #16: a writing command that fails on its input leaves no database behind that it
// created (a failed import or replay into a new path created an empty database).
TEST(Import, AFailedFirstWriteLeavesNoNewDatabase) {
  store::testing::TempDir t;
  const std::string bad = t.file("bad.json");
  store::testing::write_bytes(bad, "[1, 2, 3]");
  const std::string db = t.file("new.db");
  EXPECT_EQ(tune_cmd("import " + bad + " --db " + db).code, 2);
  EXPECT_EQ(tune_cmd("--space " + kSpec + " --replay " + bad + " --db " + db).code, 2);
  for (const char* suffix : {"", "-wal", "-shm", "-journal"}) EXPECT_FALSE(fs::exists(db + suffix)) << suffix;
  // an existing database stays, and so does a new one that the command completed
  ASSERT_EQ(tune_cmd(replay_into(db)).code, 0);
  EXPECT_EQ(tune_cmd("import " + bad + " --db " + db).code, 2);
  EXPECT_TRUE(fs::exists(db));
}

// `tune import` of the target database itself (by its name, or by a hard link to it) is refused
// before the target is opened: reading an input's header opens and closes the file, which would
// drop this process's SQLite locks on the target if it were open (store/store.h, the setup lock).
TEST(Import, TheTargetItselfIsRefusedBeforeItIsOpened) {
  store::testing::TempDir t;
  const std::string db = t.file("self.db");
  ASSERT_EQ(tune_cmd(replay_into(db)).code, 0);
  {  // a run left running by a process that is gone: any writer that opens the file marks it
    const pid_t child = ::fork();
    if (child == 0) ::_exit(0);
    ::waitpid(child, nullptr, 0);
    auto w = store::Store::open(db, store::Store::Mode::read_write);
    store::RunInfo info;
    info.kernel = "transpose";
    info.pid = child;
    w.begin_run(info);
  }
  const std::string before = store::testing::file_hash(db);
  const std::string link = t.file("link.db");
  fs::create_hard_link(db, link);
  for (const std::string& input : {db, link}) {
    const Result r = tune_cmd("import " + input + " --db " + db);
    EXPECT_EQ(r.code, 2) << r.err;
    EXPECT_NE(r.err.find("into itself"), std::string::npos) << r.err;
    EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
  }
  EXPECT_EQ(store::testing::file_hash(db), before) << "the target was opened as a writer before the refusal";
}

// Issue #16 finding 2: an output path never destroys what it points at. Through the real binary:
// --out on the database (any path to it), on a device node, a FIFO or a directory is refused with
// exit 2 and the target unchanged; a failed write (a full disk) leaves the target as it was and no
// temporary behind; a kernel name with '../' keeps the default output inside results/.
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/wait.h>
#include <unistd.h>

#include <filesystem>

#include "store/store.h"
#include "store/test_util.h"

namespace fs = std::filesystem;
using namespace tune;  // NOLINT

namespace {

const std::string kSpec = std::string(TUNE_SOURCE_DIR) + "/spaces/transpose.json";
const std::string kCache = std::string(TUNE_SOURCE_DIR) + "/results/recorded/transpose/128x128.json.gz";

int sh(const std::string& cmd) {
  const int status = std::system((cmd + " >/dev/null 2>&1").c_str());
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

std::string tune_cmd(const std::string& args) { return std::string(TUNE_BINARY) + " " + args; }

std::size_t files_in(const fs::path& dir) {
  std::size_t n = 0;
  for (const auto& e : fs::directory_iterator(dir)) n += e.is_regular_file() ? 1 : 0;
  return n;
}

struct Outputs : ::testing::Test {
  store::testing::TempDir t;
  std::string db = t.file("t.db");
  void SetUp() override { ASSERT_EQ(sh(tune_cmd("--space " + kSpec + " --replay " + kCache + " --db " + db)), 0); }
  std::vector<std::string> writers(const std::string& out) const {
    return {"header --kernel transpose --db " + db + " --out " + out,
            "report --kernel transpose --db " + db + " --out " + out,
            "export --format csv --kernel transpose --db " + db + " --out " + out};
  }
};

}  // namespace

TEST_F(Outputs, TheDatabaseIsNeverAnOutput) {
  { auto s = store::Store::open(db, store::Store::Mode::read_write); }  // checkpointed: no -wal left to differ
  const std::string before = store::testing::file_hash(db);
  fs::create_symlink(db, t.file("link.db"));
  fs::create_hard_link(db, t.file("hard.db"));
  for (const std::string& out : {db, t.file("./t.db"), t.file("sub/../t.db"), t.file("link.db"), t.file("hard.db")})
    for (const auto& cmd : writers(out)) {
      EXPECT_EQ(sh(tune_cmd(cmd)), 2) << cmd;
      EXPECT_EQ(store::testing::file_hash(db), before) << cmd;
    }
  EXPECT_EQ(store::Store::open(db, store::Store::Mode::read_only).measurement_count(), 397);
}

// Any SQLite database is kept from every output, also one the command does not know as its own:
// `tune evaluate --curves other.db` replaced a database with CSV and exited 0.
TEST_F(Outputs, NoSqliteDatabaseIsEverAnOutput) {
  { auto s = store::Store::open(db, store::Store::Mode::read_write); }
  const std::string before = store::testing::file_hash(db);
  const std::string other = t.file("other.db");
  ASSERT_EQ(sh(tune_cmd("--space " + kSpec + " --replay " + kCache + " --db " + other)), 0);
  { auto s = store::Store::open(other, store::Store::Mode::read_write); }
  const std::string other_before = store::testing::file_hash(other);
  EXPECT_EQ(sh(tune_cmd("evaluate --space " + kSpec + " --replay " + kCache +
                        " --strategy random_sample --repeats 2 --curves " + db)),
            2);
  for (const auto& cmd : writers(other)) EXPECT_EQ(sh(tune_cmd(cmd)), 2) << cmd;
  EXPECT_EQ(store::testing::file_hash(db), before);
  EXPECT_EQ(store::testing::file_hash(other), other_before);
}

TEST_F(Outputs, OnlyRegularFilesAreWritten) {
  ASSERT_EQ(::mkfifo(t.file("fifo").c_str(), 0644), 0);
  fs::create_directory(t.file("dir"));
  std::vector<std::string> targets = {t.file("fifo"), t.file("dir")};
  if (::geteuid() == 0) {  // a character device like /dev/null, in the scratch directory
    ASSERT_EQ(::mknod(t.file("null").c_str(), S_IFCHR | 0666, makedev(1, 3)), 0);
    targets.push_back(t.file("null"));
  }
  for (const auto& out : targets)
    for (const auto& cmd : writers(out)) EXPECT_EQ(sh(tune_cmd(cmd)), 2) << cmd;
  EXPECT_TRUE(fs::is_fifo(t.file("fifo")));
  EXPECT_TRUE(fs::is_directory(t.file("dir")));
  if (::geteuid() == 0) {
    EXPECT_TRUE(fs::is_character_file(t.file("null")));
  }
}

TEST_F(Outputs, AFailedWriteLeavesTheTargetAndNoTemporary) {
  const fs::path dir = t.file("out");
  fs::create_directory(dir);
  store::testing::write_bytes((dir / "r.html").string(), "previous");
  // a full disk, as the process sees it: files may not grow past 1 KiB (SIGXFSZ ignored: EFBIG)
  const std::string cmd = "trap '' XFSZ; ulimit -f 1; " +
                          tune_cmd("report --kernel transpose --db " + db + " --out " + (dir / "r.html").string());
  EXPECT_EQ(sh("bash -c \"" + cmd + "\""), 2);
  EXPECT_EQ(store::testing::read_bytes((dir / "r.html").string()), "previous");
  EXPECT_EQ(files_in(dir), 1u);  // no r.html.tmp left behind
}

TEST_F(Outputs, AHostileKernelNameStaysInsideResults) {
  const fs::path cwd = t.file("work");
  fs::create_directories(cwd);
  ASSERT_EQ(sh("cd " + cwd.string() + " && " + tune_cmd("import " + kCache + " --kernel ../../escaped --db " + db)), 0);
  ASSERT_EQ(sh("cd " + cwd.string() + " && " + tune_cmd("report --kernel ../../escaped --db " + db)), 0);
  EXPECT_FALSE(fs::exists(t.path() / "escaped_report.html"));
  EXPECT_FALSE(fs::exists(fs::path(t.path()).parent_path() / "escaped_report.html"));
  bool inside = false;
  for (const auto& e : fs::directory_iterator(cwd / "results"))
    inside = inside || e.path().filename().string().find("escaped") != std::string::npos;
  EXPECT_TRUE(inside);
}

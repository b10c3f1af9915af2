// Issue #47 through the real binary: outputs never over inputs, every JSON output for any stored
// name, the Tune extension checked for a replay too, and no trace of a refused run.
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>

#include <nlohmann/json.hpp>

#include "cli/test_process.h"
#include "store/test_util.h"

namespace fs = std::filesystem;
using tune::cli::testing::Process;
using tune::store::testing::file_hash;
using tune::store::testing::TempDir;

namespace {

const fs::path kSource = TUNE_SOURCE_DIR;
const std::string kTranspose = (kSource / "spaces/transpose.json").string();
const std::string kCache = (kSource / "results/recorded/transpose/512x512.json.gz").string();

struct Ran {
  int code;
  std::string out, err;
};

Ran run(const TempDir& t, const std::string& args, const std::string& prefix = "") {
  static int n = 0;
  Process p(args, t.path(), "p" + std::to_string(n++), prefix);
  const int code = p.wait();
  return {code, p.text(p.out), p.text(p.err)};
}

// `SETUP tune ARGS` through sh (SETUP: shell commands ending in `;`, or a command prefix), its
// output in t's files.
Ran sh(const TempDir& t, const std::string& setup, const std::string& args) {
  const std::string out = t.file("sh.out"), err = t.file("sh.err");
  const int status =
      std::system((setup + " " + tune::cli::testing::binary() + " " + args + " >" + out + " 2>" + err).c_str());
  return {WIFEXITED(status) ? WEXITSTATUS(status) : -1, tune::store::testing::read_bytes(out),
          tune::store::testing::read_bytes(err)};
}

std::size_t lines(const std::string& text) {
  return static_cast<std::size_t>(std::count(text.begin(), text.end(), '\n'));
}

// Commands as another account (root only): `setpriv` to nobody, or to daemon.
const std::string kAsNobody = "setpriv --reuid=nobody --regid=nogroup --clear-groups ";
const std::string kAsDaemon = "setpriv --reuid=daemon --regid=daemon --clear-groups ";
bool others_can_run_tune() {
  return ::geteuid() == 0 &&
         std::system((kAsNobody + tune::cli::testing::binary() + " --version >/dev/null 2>&1").c_str()) == 0 &&
         std::system((kAsDaemon + tune::cli::testing::binary() + " --version >/dev/null 2>&1").c_str()) == 0;
}

// A folder in t every account may write (as /tmp), t itself opened to them.
// Inputs another account can read wherever the checkout is (CI's is in a folder only its owner
// may enter): the spec, its kernel sources and two recorded caches, copied into `dir`.
void readable_inputs(const fs::path& dir) {
  fs::create_directories(dir / "spaces");
  fs::copy_file(kTranspose, dir / "spaces/transpose.json");
  fs::copy(kSource / "kernels_src", dir / "kernels_src", fs::copy_options::recursive);
  fs::copy_file(kCache, dir / "c.json.gz");
  fs::copy_file(kSource / "results/recorded/transpose/256x256.json.gz", dir / "c2.json.gz");
  for (const auto& e : fs::recursive_directory_iterator(dir))
    fs::permissions(e.path(),
                    e.is_directory() ? fs::perms::others_read | fs::perms::others_exec | fs::perms::group_read |
                                           fs::perms::group_exec
                                     : fs::perms::others_read | fs::perms::group_read,
                    fs::perm_options::add);
}

fs::path shared_folder(const TempDir& t) {
  fs::permissions(t.path(), fs::perms::others_exec | fs::perms::others_read, fs::perm_options::add);
  fs::path d = t.path() / "shared";
  fs::create_directory(d);
  fs::permissions(d, fs::perms::all | fs::perms::sticky_bit);
  readable_inputs(d);
  return d;
}

}  // namespace

// A kernel name with bytes that are not UTF-8 (given with --kernel): `db --json` and `best --json`
// exited 1 (nlohmann's type_error); the names come out with U+FFFD in their place.
TEST(NothingLostCli, JsonOutputsTakeNamesThatAreNotUtf8) {
  TempDir t;
  fs::copy_file(kCache, t.file("c.json.gz"));
  const std::string db = " --db " + t.file("u.db");
  ASSERT_EQ(run(t, "import " + t.file("c.json.gz") + " --kernel \"$(printf 'k\\377')\"" + db).code, 0);
  for (const char* cmd : {"db --json", "best --json"}) {
    const Ran r = run(t, cmd + db);
    EXPECT_EQ(r.code, 0) << cmd << ": " << r.err;
    EXPECT_TRUE(nlohmann::json::accept(r.out)) << r.out.substr(0, 200);
    EXPECT_NE(r.out.find("k\xef\xbf\xbd"), std::string::npos) << r.out.substr(0, 200);
  }
}

// `--replay` accepted a spec whose Tune extension a GPU run refuses: now the same refusal, before
// anything is written.
TEST(NothingLostCli, ReplayChecksTheTuneExtension) {
  TempDir t;
  auto j = nlohmann::json::parse(std::ifstream(kTranspose));
  j["Tune"] = {{"statistic", 7}};
  j["KernelSpecification"]["KernelFile"] = (kSource / "kernels_src/transpose.cu").string();
  std::ofstream(t.file("bad.json")) << j.dump(1);
  const Ran r = run(t, "--space " + t.file("bad.json") + " --replay " + kCache + " --db " + t.file("r.db"));
  EXPECT_EQ(r.code, 2) << r.err;
  EXPECT_NE(r.err.find("Tune.statistic"), std::string::npos) << r.err;
  EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
  EXPECT_FALSE(fs::exists(t.file("r.db")));
}

// A Tune.alignment that gives 0 for some configuration was measured and stored, and refused only
// by `best` and `header`: now refused over the whole space before anything is written, by a run
// and by an import with that spec.
TEST(NothingLostCli, AlignmentIsCheckedForEveryConfigurationBeforeARun) {
  TempDir t;
  auto j = nlohmann::json::parse(std::ifstream(kTranspose));
  j["Tune"]["alignment"]["x"] = "vector - 1";  // 0 where vector is 1
  j["KernelSpecification"]["KernelFile"] = (kSource / "kernels_src/transpose.cu").string();
  std::ofstream(t.file("bad.json")) << j.dump(1);
  const Ran r = run(t, "--space " + t.file("bad.json") + " --replay " + kCache + " --db " + t.file("a.db"));
  EXPECT_EQ(r.code, 2) << r.out << r.err;
  EXPECT_NE(r.err.find("Tune.alignment.x"), std::string::npos) << r.err;
  EXPECT_TRUE(r.out.empty()) << r.out;
  EXPECT_FALSE(fs::exists(t.file("a.db")));
  const Ran i = run(t, "import " + kCache + " --spec " + t.file("bad.json") + " --db " + t.file("a.db"));
  EXPECT_EQ(i.code, 2) << i.out << i.err;
  EXPECT_NE(i.err.find("Tune.alignment.x"), std::string::npos) << i.err;
  EXPECT_FALSE(fs::exists(t.file("a.db")));
}

// A full disk during a database write (files may not grow past 64 KiB; SIGXFSZ ignored: the write
// fails): exit 2 with one line that says so, for a new database and an existing one.
TEST(NothingLostCli, AFullDiskIsExitTwoWithOneLine) {
  TempDir t;
  const std::string import = "import " + kCache + " --spec " + kTranspose + " --db ";
  const Ran fresh = sh(t, "trap '' XFSZ; ulimit -f 64;", import + t.file("new.db"));
  EXPECT_EQ(fresh.code, 2) << fresh.err;
  EXPECT_EQ(lines(fresh.err), 1u) << fresh.err;
  EXPECT_NE(fresh.err.find("the disk is full"), std::string::npos) << fresh.err;
  ASSERT_EQ(run(t, import + t.file("old.db")).code, 0);
  const Ran old = sh(t, "trap '' XFSZ; ulimit -f 64;",
                     "import " + (kSource / "results/recorded/transpose/256x256.json.gz").string() + " --spec " +
                         kTranspose + " --db " + t.file("old.db"));
  EXPECT_EQ(old.code, 2) << old.err;
  EXPECT_EQ(lines(old.err), 1u) << old.err;
  EXPECT_NE(old.err.find("the disk is full"), std::string::npos) << old.err;
  EXPECT_EQ(run(t, "db --db " + t.file("old.db")).code, 0);  // still a database
}

// Permissions: another account's database, a folder it may not write: exit 2 with one line.
TEST(NothingLostCli, PermissionFailuresAreExitTwoWithOneLine) {
  if (!others_can_run_tune()) GTEST_SKIP() << "needs root, and nobody able to run " << tune::cli::testing::binary();
  TempDir t;
  fs::permissions(t.path(), fs::perms::others_exec | fs::perms::others_read, fs::perm_options::add);
  readable_inputs(t.path() / "in");
  const std::string spec = (t.path() / "in/spaces/transpose.json").string(),
                    cache = (t.path() / "in/c.json.gz").string();
  ASSERT_EQ(run(t, "import " + cache + " --spec " + spec + " --db " + t.file("root.db")).code, 0);
  for (const std::string& args : {"import " + cache + " --spec " + spec + " --db " + t.file("root.db"),
                                  "import " + cache + " --spec " + spec + " --db " + t.file("new.db"),
                                  "--space " + spec + " --replay " + cache + " --db " + t.file("new.db")}) {
    const Ran r = sh(t, "cd " + t.path().string() + " && exec " + kAsNobody, args);
    EXPECT_EQ(r.code, 2) << args << ": " << r.err;
    EXPECT_EQ(lines(r.err), 1u) << args << ": " << r.err;
    EXPECT_EQ(r.err.find("internal error"), std::string::npos) << r.err;
  }
  EXPECT_FALSE(fs::exists(t.file("new.db")));
}

// A reader of another account made -wal and -shm files of its own beside the database, which the
// owner's next write could not open (exit 1, later 2): now it creates nothing there.
TEST(NothingLostCli, AnotherAccountsReaderLeavesNothingThatBlocksTheOwner) {
  if (!others_can_run_tune()) GTEST_SKIP() << "needs root, and nobody able to run " << tune::cli::testing::binary();
  TempDir t;
  const fs::path d = shared_folder(t);
  const std::string db = " --spec " + (d / "spaces/transpose.json").string() + " --db " + (d / "o.db").string();
  const std::string in_d = "cd " + d.string() + " && exec ";
  const Ran first = sh(t, in_d + kAsNobody, "import " + (d / "c.json.gz").string() + db);
  ASSERT_EQ(first.code, 0) << first.err;
  for (const char* cmd : {"best", "db", "best --json"}) {
    const Ran r = sh(t, in_d + kAsDaemon, std::string(cmd) + " --db " + (d / "o.db").string());
    EXPECT_EQ(r.code, 0) << cmd << ": " << r.err;
  }
  EXPECT_FALSE(fs::exists(d / "o.db-shm"));
  EXPECT_FALSE(fs::exists(d / "o.db-wal"));
  const Ran owner = sh(t, in_d + kAsNobody, "import " + (d / "c2.json.gz").string() + db);
  EXPECT_EQ(owner.code, 0) << owner.err;
}

// Outputs over the command's own inputs, exit 0 before: the replayed cache as `evaluate --curves`,
// the spec and its KernelFile as `header --out`, the spec as `--db`.
TEST(NothingLostCli, OutputsNeverReplaceTheirInputs) {
  TempDir t;
  fs::copy_file(kCache, t.file("c.json.gz"));
  fs::create_directories(t.path() / "spaces");
  fs::create_directories(t.path() / "kernels_src");
  fs::copy_file(kTranspose, t.path() / "spaces/transpose.json");
  fs::copy(kSource / "kernels_src", t.path() / "kernels_src", fs::copy_options::recursive);
  const std::string spec = (t.path() / "spaces/transpose.json").string(),
                    kernel = (t.path() / "kernels_src/transpose.cu").string(), cache = t.file("c.json.gz");
  // the headers the kernel includes are inputs too
  const std::string included = (t.path() / "kernels_src/common/transpose_wide.cuh").string();
  const std::string before_cache = file_hash(cache), before_spec = file_hash(spec), before_kernel = file_hash(kernel),
                    before_included = file_hash(included);

  Ran r = run(t, "evaluate --space " + spec + " --replay " + cache +
                     " --strategy random_sample --repeats 1 --resamples 0 "
                     "--curves " +
                     cache);
  EXPECT_EQ(r.code, 2) << r.err;
  EXPECT_NE(r.err.find("refusing to overwrite it"), std::string::npos) << r.err;

  const std::string db = " --db " + t.file("h.db");
  ASSERT_EQ(run(t, "import " + cache + " --spec " + spec + db).code, 0);
  for (const std::string& out : {spec, kernel, included}) {
    r = run(t, "header --kernel transpose --space " + spec + " --out " + out + db);
    EXPECT_EQ(r.code, 2) << out << ": " << r.out << r.err;
    EXPECT_NE(r.err.find("refusing to overwrite it"), std::string::npos) << r.err;
  }
  for (const std::string& db : {spec, included}) {
    r = run(t, "--space " + spec + " --replay " + cache + " --db " + db);
    EXPECT_EQ(r.code, 2) << db << ": " << r.err;
  }
  r = run(t, "evaluate --space " + spec + " --replay " + cache +
                 " --strategy random_sample --repeats 1 --resamples 0 --curves " + included);
  EXPECT_EQ(r.code, 2) << r.err;
  EXPECT_EQ(file_hash(cache), before_cache);
  EXPECT_EQ(file_hash(spec), before_spec);
  EXPECT_EQ(file_hash(kernel), before_kernel);
  EXPECT_EQ(file_hash(included), before_included);
}

// `--out t.db-shm` with `--db link.db` (a link to t.db) replaced the database's shared memory.
TEST(NothingLostCli, OutputNeverTheSideFileOfADatabaseNamedThroughALink) {
  TempDir t;
  const std::string db = t.file("t.db");
  ASSERT_EQ(run(t, "import " + kCache + " --spec " + kTranspose + " --db " + db).code, 0);
  fs::create_symlink(db, t.file("link.db"));
  for (const char* side : {"t.db-shm", "t.db-wal"}) {
    tune::store::testing::write_bytes(t.file(side), "");
    const Ran r = run(t, "report --kernel transpose --db " + t.file("link.db") + " --out " + t.file(side));
    EXPECT_EQ(r.code, 2) << side << ": " << r.out << r.err;
    EXPECT_NE(r.err.find("file of the database"), std::string::npos) << r.err;
    // SQLite's own use of it (the report's read) leaves no HTML in it
    EXPECT_EQ(tune::store::testing::read_bytes(t.file(side)).find("<html"), std::string::npos) << side;
  }
}

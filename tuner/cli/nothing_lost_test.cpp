// Issue #47 through the real binary: outputs never over inputs, every JSON output for any stored
// name, the Tune extension checked for a replay too, and no trace of a refused run.
#include <gtest/gtest.h>

#include <algorithm>
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

// Outputs over the command's own inputs, exit 0 before: the replayed cache as `evaluate --curves`,
// the spec and its KernelFile as `header --out`, the spec as `--db`.
TEST(NothingLostCli, OutputsNeverReplaceTheirInputs) {
  TempDir t;
  fs::copy_file(kCache, t.file("c.json.gz"));
  fs::create_directories(t.path() / "spaces");
  fs::create_directories(t.path() / "kernels_src");
  fs::copy_file(kTranspose, t.path() / "spaces/transpose.json");
  fs::copy_file(kSource / "kernels_src/transpose.cu", t.path() / "kernels_src/transpose.cu");
  const std::string spec = (t.path() / "spaces/transpose.json").string(),
                    kernel = (t.path() / "kernels_src/transpose.cu").string(), cache = t.file("c.json.gz");
  const std::string before_cache = file_hash(cache), before_spec = file_hash(spec), before_kernel = file_hash(kernel);

  Ran r = run(t, "evaluate --space " + spec + " --replay " + cache +
                     " --strategy random_sample --repeats 1 --resamples 0 "
                     "--curves " +
                     cache);
  EXPECT_EQ(r.code, 2) << r.err;
  EXPECT_NE(r.err.find("refusing to overwrite it"), std::string::npos) << r.err;

  const std::string db = " --db " + t.file("h.db");
  ASSERT_EQ(run(t, "import " + cache + " --spec " + spec + db).code, 0);
  for (const std::string& out : {spec, kernel}) {
    r = run(t, "header --kernel transpose --space " + spec + " --out " + out + db);
    EXPECT_EQ(r.code, 2) << out << ": " << r.out << r.err;
    EXPECT_NE(r.err.find("refusing to overwrite it"), std::string::npos) << r.err;
  }
  r = run(t, "--space " + spec + " --replay " + cache + " --db " + spec);
  EXPECT_EQ(r.code, 2) << r.err;
  EXPECT_EQ(file_hash(cache), before_cache);
  EXPECT_EQ(file_hash(spec), before_spec);
  EXPECT_EQ(file_hash(kernel), before_kernel);
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

// Real `tune` processes on one database at once: nothing one reports as stored is lost, and no two
// measure the same work at once.
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <sstream>
#include <string>

#include "cli/test_process.h"
#include "store/store.h"
#include "store/test_util.h"

namespace fs = std::filesystem;
using tune::cli::testing::Process;
using tune::store::Store;
using tune::store::testing::TempDir;

namespace {

const fs::path kSource = TUNE_SOURCE_DIR;
constexpr int kTrials = 50;

// A Kernel Tuner cache of rows x cols configurations.
std::string cache(int rows, int cols) {
  std::ostringstream s;
  s << R"({"device_name": "GPU X", "kernel_name": "k", "problem_size": 4096, "tune_params_keys": ["a", "b"], )"
    << R"("objective": "time", "cache": {)";
  for (int a = 0; a < rows; ++a)
    for (int b = 0; b < cols; ++b)
      s << (a + b ? ", " : "") << "\"" << a << "," << b << "\": {\"a\": " << a << ", \"b\": " << b
        << ", \"time\": " << 1.0 + a * 0.01 + b * 0.001 << "}";
  s << "}}\n";
  return s.str();
}

std::size_t measurements(const fs::path& db) {
  return Store::open(db.string(), Store::Mode::read_only).measurement_count();
}

}  // namespace

// A failing first writer removed the new database another first writer was filling: the other
// reported "added", exit 0, and no file was left. Now only the process that created the file, and
// only while no other writer holds it, removes it.
TEST(NothingLost, AFailingFirstWriterNeverRemovesAnotherWritersDatabase) {
  TempDir t;
  const std::string good = cache(60, 50);
  std::string bad = good;
  bad.insert(bad.size() - 2, "x");  // invalid JSON only at the very end: fails after a whole parse
  const fs::path good_file = t.path() / "good.json", bad_file = t.path() / "bad.json";
  tune::store::testing::write_bytes(good_file.string(), good);
  tune::store::testing::write_bytes(bad_file.string(), bad);
  int lost = 0;
  for (int trial = 0; trial < kTrials; ++trial) {
    const fs::path dir = t.path() / std::to_string(trial), db = dir / "new.db";
    fs::create_directories(dir);
    const std::string args = " --db " + db.string();
    // the failing writer first on odd trials, second on even ones
    Process first(std::string("import ") + (trial % 2 ? bad_file : good_file).string() + args, dir, "first");
    Process second(std::string("import ") + (trial % 2 ? good_file : bad_file).string() + args, dir, "second");
    const int c1 = first.wait(), c2 = second.wait();
    const Process& writer = trial % 2 ? second : first;
    const int good_code = trial % 2 ? c2 : c1, bad_code = trial % 2 ? c1 : c2;
    EXPECT_EQ(bad_code, 2);
    ASSERT_EQ(good_code, 0) << writer.text(writer.err);
    const bool kept = fs::exists(db) && measurements(db) == 3000;
    if (!kept) ++lost;
    EXPECT_TRUE(kept) << "trial " << trial << ": the import reported " << writer.text(writer.out)
                      << " but the database " << (fs::exists(db) ? "lacks its rows" : "is gone");
  }
  EXPECT_EQ(lost, 0) << lost << " of " << kTrials << " trials lost a reported import";
}

// Two `tune --replay` of the same caches into one database: never both measuring at once. The
// second refuses, saying so (or, started after the first ended, resumes).
TEST(NothingLost, TwoRunsOfTheSameWorkNeverMeasureAtOnce) {
  TempDir t;
  const std::string args = "--space " + (kSource / "spaces/transpose.json").string() + " --replay " +
                           (kSource / "results/recorded/transpose/1152x1152.json.gz").string() + " " +
                           (kSource / "results/recorded/transpose/512x512.json.gz").string() +
                           " --strategy brute_force --seed 1 --db ";
  int overlapping = 0, refused = 0;
  for (int trial = 0; trial < kTrials; ++trial) {
    const fs::path dir = t.path() / std::to_string(trial), db = dir / "r.db";
    fs::create_directories(dir);
    Process a(args + db.string(), dir, "a"), b(args + db.string(), dir, "b");
    const int ca = a.wait(), cb = b.wait();
    for (const auto* p : {&a, &b}) {
      const int code = p == &a ? ca : cb;
      if (code == 2) {
        ++refused;
        EXPECT_NE(p->text(p->err).find("another tune process is tuning kernel"), std::string::npos) << p->text(p->err);
      } else {
        EXPECT_EQ(code, 0) << p->text(p->err);
      }
    }
    EXPECT_FALSE(ca == 2 && cb == 2) << "both refused";
    // the replay runs of the database: their [started_at, ended_at] never overlap
    auto s = Store::open(db.string(), Store::Mode::read_only);
    auto runs = s.runs();
    for (std::size_t i = 0; i < runs.size(); ++i)
      for (std::size_t j = i + 1; j < runs.size(); ++j) {
        const auto &x = runs[i], &y = runs[j];
        if (x.pid == y.pid) continue;  // one process's sizes, one after another
        const std::string xe = x.ended_at.value_or("9"), ye = y.ended_at.value_or("9");
        if (x.started_at < ye && y.started_at < xe) ++overlapping;
      }
  }
  EXPECT_EQ(overlapping, 0) << overlapping << " pairs of runs of the same work measured at the same time";
  std::printf("%d of %d second processes refused\n", refused, kTrials);
}

// The launcher says two ranks, MPI one (a launcher this tune's MPI does not join, or no MPI): each
// would run the whole job again. Refused before anything is measured or created.
TEST(NothingLost, ALauncherRankThatMpiSeesAloneIsRefused) {
  TempDir t;
  const std::string args = "--space " + (kSource / "spaces/transpose.json").string() + " --replay " +
                           (kSource / "results/recorded/transpose/512x512.json.gz").string() + " --db " +
                           t.file("r.db");
  for (const char* env : {"env MPI_LOCALNRANKS=2", "env SLURM_PROCID=0 SLURM_STEP_NUM_TASKS=2"}) {
    Process p(args, t.path(), "rank", env);
    EXPECT_EQ(p.wait(), 2) << env;
    const std::string err = p.text(p.err);
    EXPECT_NE(err.find("the launcher started 2 ranks"), std::string::npos) << err;
    EXPECT_NE(err.find("MPI reports 1"), std::string::npos) << err;
    EXPECT_EQ(std::count(err.begin(), err.end(), '\n'), 1) << err;
    EXPECT_FALSE(fs::exists(t.file("r.db"))) << env;
  }
}

// A FIFO given to `tune import` (as a cache, or where a database would be merged) is refused at
// once instead of waiting for a writer for ever.
TEST(NothingLost, ImportOfAFifoIsRefusedWithoutWaiting) {
  TempDir t;
  ASSERT_EQ(::mkfifo(t.file("pipe.json").c_str(), 0600), 0);
  Process p("import " + t.file("pipe.json") + " --db " + t.file("x.db"), t.path(), "fifo", "timeout 20");
  EXPECT_EQ(p.wait(), 2) << "124: it waited on the FIFO";
  EXPECT_NE(p.text(p.err).find("not a regular file"), std::string::npos) << p.text(p.err);
}

// A replay killed with SIGKILL while it stores evaluations (the writer's batches, the
// checkpointer's copies into the database file): the database is intact, holds a prefix of the
// evaluations in order (what was lost is the batch in flight), and the same replay run again
// completes on it.
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <filesystem>
#include <thread>

#include "common/test_data.h"
#include "store/store.h"
#include "store/test_util.h"
#include "tuning/replay.h"

namespace fs = std::filesystem;
using namespace tune;

namespace {

// Throws, naming the file, when the spec or the cache is missing from data/.
tuning::Options brute_force(const fs::path& db) {
  tuning::Options o;
  o.space = test_data::file("benchmark_hub/dedispersion_milo.json").string();
  o.replay = {test_data::file("benchmark_hub/dedispersion_milo/A100.json.gz").string()};  // 11,130 configurations
  o.db = db.string();
  o.strategy = "brute_force";
  return o;
}

// Evaluation orders of the stored rows of a run, ascending.
std::vector<std::int64_t> orders(store::Store& s, std::int64_t run) {
  store::MeasurementFilter f;
  f.kernel = s.kernels().at(0);
  f.ok_only = false;
  f.run_id = run;
  std::vector<std::int64_t> out;
  for (const auto& m : s.measurements(f)) out.push_back(m.eval_order.value_or(-1));
  std::sort(out.begin(), out.end());
  return out;
}

}  // namespace

TEST(ReplayKill, KilledMidwayLeavesAnIntactPrefixAndRunsAgain) {
  store::testing::TempDir t;
  const fs::path db = t.path() / "r.db";
  const tuning::Options options = brute_force(db);  // its files exist, or the test fails naming them
  const pid_t child = fork();
  ASSERT_GE(child, 0);
  if (child == 0) {  // the replay, in a process of its own (no threads exist before the fork)
    try {
      tuning::replay(options, tuning::validate(options));
    } catch (const std::exception& e) {
      std::fprintf(stderr, "the replay failed: %s\n", e.what());
      _exit(1);
    }
    _exit(0);
  }
  // Kill it as soon as a first batch is committed, while it writes the next ones.
  auto stored_count = [&db]() -> std::int64_t {
    try {
      return store::Store::open(db.string(), store::Store::Mode::read_only).measurement_count();
    } catch (const InputError&) {  // not created (or not migrated) yet
      return 0;
    }
  };
  std::int64_t seen = 0;
  int status = 0;
  bool ended = false;  // the replay's process ended by itself (a failure prints its error above)
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(20);
  while (seen == 0 && !ended && std::chrono::steady_clock::now() < deadline) {
    ended = waitpid(child, &status, WNOHANG) == child;
    seen = stored_count();
    if (seen == 0 && !ended) std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  if (!ended) {
    kill(child, SIGKILL);
    waitpid(child, &status, 0);
  }
  ASSERT_FALSE(ended && seen == 0) << "the replay ended (exit status " << WEXITSTATUS(status)
                                   << ") before it committed a batch";
  ASSERT_GT(seen, 0) << "no batch was committed within 20 s";

  auto s = store::Store::open(db.string(), store::Store::Mode::read_write);
  EXPECT_EQ(s.integrity_check(), "ok");
  auto runs = s.runs();
  ASSERT_EQ(runs.size(), 1u);
  if (WIFSIGNALED(status)) {  // killed before it finished (it almost always is)
    // The writer that opened it found the replay's process gone and marked its run interrupted.
    EXPECT_EQ(runs[0].status, store::RunStatus::interrupted);
    const auto stored = orders(s, runs[0].id);
    EXPECT_LT(stored.size(), 11130u);
    for (std::size_t k = 0; k < stored.size(); ++k) ASSERT_EQ(stored[k], static_cast<std::int64_t>(k));
  }

  auto o = brute_force(db);
  auto again = tuning::replay(o, tuning::validate(o));
  ASSERT_EQ(again.size(), 1u);
  EXPECT_EQ(s.run(again[0].run_id)->status, store::RunStatus::completed);
  EXPECT_EQ(orders(s, again[0].run_id).size(), 11130u);
  EXPECT_EQ(s.integrity_check(), "ok");
}

// Online tuning on a GPU, the whole path: every launch right, the rotation settled, the
// application's input untouched, the result file written and read back by `tune import`, also where
// the GPU's memory is scarce. Without a GPU the tests skip.
#include <cuda_runtime.h>
#include <gtest/gtest.h>

#include <cstdio>
#include <fstream>
#include <nlohmann/json.hpp>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "interop/interop.h"
#include "runtime/online.h"
#include "runtime/test_util.h"
#include "tune/runtime.h"

namespace fs = std::filesystem;
using namespace tune;
using runtime::testing::Recorded;

namespace {

// Launches at cols x rows, a size the table lacks, with `batch` (0: sized from the table); with
// `leave` > 0 the device's free memory is held down to about that many bytes before the first.
struct OnlineRun {
  long long cols = 1001, rows = 997;
  int batch = 0;
  std::size_t leave = 0;
};

// On a GPU: launches of `run` are all right, the rotation settles within 80 on a candidate, and
// its file is written and imported; `rule` is the file's.
void online_at(const OnlineRun& run, nlohmann::json& rule) {
  Recorded rec;
  runtime::Options o;
  o.disk_cache = false;
  o.online.enabled = true;
  o.online.batch = run.batch;
  o.online.dir = rec.dir.path() / "online";
  runtime::Kernel k(runtime::testing::spec_path(), rec.table, o);
  const long long cols = run.cols, rows = run.rows;
  const runtime::testing::DeviceBuffers b(std::size_t(cols * rows), 0.5f);
  ASSERT_TRUE(b.ok);
  const std::size_t n = b.n;
  const float* in = b.in;
  float* out = b.out;
  const std::vector<float> want = b.transposed(cols, rows);
  std::optional<runtime::testing::MemoryHold> hold;
  if (run.leave > 0) {
    hold.emplace(run.leave);
    ASSERT_TRUE(hold->ok) << "could not hold the device's memory";
  }
  std::set<std::string> configs;
  bool settled = false;
  for (int i = 0; i < 80 && !settled; ++i) {
    // The rotation's samples are read once they have completed: past its 64 launches the
    // application waits for its work once, as a loop that reads its results does.
    if (i == 64) {
      ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
    }
    ASSERT_EQ(cudaMemset(out, 0, n * sizeof(float)), cudaSuccess);
    const auto& s = k.launch(nullptr, {cols, rows},
                             {runtime::Arg::buffer(out, n), runtime::Arg::buffer(in, n),
                              runtime::Arg::scalar(int(rows)), runtime::Arg::scalar(int(cols))});
    configs.insert(s.config);
    settled = s.online;
    if (i < o.online.candidates || settled) {  // every candidate's output, and the winner's
      const std::size_t at = runtime::testing::first_difference(b.read(out), want);
      ASSERT_EQ(at, n) << s.config << " wrong at output element " << at;
    }
  }
  EXPECT_TRUE(settled);
  EXPECT_GE(configs.size(), 2u);
  // the batches read copies of the input: the application's is read, never written
  EXPECT_EQ(b.read(in), b.host);
  const auto st = k.stats();
  EXPECT_EQ(st.online_settled, 1u);
  EXPECT_EQ(st.online_files, 1u) << st.online_note;
  EXPECT_GE(st.online_extra_ms, 0.0);
  EXPECT_LT(st.online_wait_ms, runtime::detail::kCutWaitMs + 100.0);
  std::printf("online at %lldx%lld: %zu configurations tried, %.3f ms beyond the winner, the cut waited %.3f ms\n",
              cols, rows, configs.size(), st.online_extra_ms, st.online_wait_ms);
  for (const auto& e : fs::directory_iterator(o.online.dir)) {
    std::ifstream f(e.path());
    const auto j = nlohmann::json::parse(f);
    rule = j.at("rule");
    EXPECT_EQ(rule.at("finalists"), o.online.finalists);
    for (const auto& c : j.at("candidates"))
      EXPECT_GE(c.at("samples_ms").size(), static_cast<std::size_t>(o.online.min_samples));
    // the winner is a finalist, with at least its share of the launches the first round left
    // (more where the table has fewer candidates than the rule allows)
    const int share =
        o.online.min_samples + (o.online.launches - o.online.candidates * o.online.min_samples) / o.online.finalists;
    EXPECT_GE(j.at("candidates").at(j.at("winner").get<std::size_t>()).at("samples_ms").size(),
              static_cast<std::size_t>(share));
    const auto r = interop::import_file(rec.db, e.path(), {});
    EXPECT_EQ(r.format, "tune online");
    EXPECT_EQ(r.added, configs.size());
  }
  EXPECT_FALSE(rule.is_null()) << "no result file";
}

}  // namespace

// Batches sized from the table: a launch of about 3 us gets several launches per sample, on scratch
// buffers (the inputs copied), and the application's buffers still get every launch's right output.
TEST(OnlineGpu, EveryLaunchIsRightAndTheWinnerIsWritten) {
  if (const std::string why = runtime::testing::no_gpu(); !why.empty()) GTEST_SKIP() << why;
  nlohmann::json rule;
  online_at({}, rule);
  EXPECT_GT(rule.value("batch", 0), 1);
  EXPECT_EQ(rule.value("placements", 0), runtime::detail::kPlacements);
  EXPECT_TRUE(rule.value("inputs_copied", false));
}

TEST(OnlineGpu, SingleLaunchSamplesStillWork) {
  if (const std::string why = runtime::testing::no_gpu(); !why.empty()) GTEST_SKIP() << why;
  nlohmann::json rule;
  online_at({.batch = 1}, rule);
  EXPECT_EQ(rule.value("batch", 0), 1);
  EXPECT_EQ(rule.value("placements", -1), 0);  // the application's launches, on its own buffers
}

// Where the GPU's memory is scarce, the placements do without the inputs' copies (half the free
// memory holds the outputs' sets, not the copies too), and with less still the samples time the
// application's own launches; every launch stays right. At 4096 x 2048 one buffer is 32 MiB: the
// two sets take 128 MiB with the copies, 64 without (online.h: kScratchShare).
TEST(OnlineGpu, ScarceMemoryDropsTheCopiesThenThePlacements) {
  if (const std::string why = runtime::testing::no_gpu(); !why.empty()) GTEST_SKIP() << why;
  const std::size_t mib = std::size_t(1) << 20;
  nlohmann::json rule;
  online_at({.cols = 4096, .rows = 2048, .leave = 192 * mib}, rule);
  EXPECT_EQ(rule.value("placements", 0), runtime::detail::kPlacements);
  EXPECT_FALSE(rule.value("inputs_copied", true));
  rule = nullptr;
  online_at({.cols = 4096, .rows = 2048, .leave = 64 * mib}, rule);
  EXPECT_EQ(rule.value("placements", -1), 0);
  EXPECT_EQ(rule.value("batch", 0), 1);
}

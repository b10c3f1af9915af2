// One search path: given the same measurements, the GPU sweep's evaluator (SweepEvaluator, fed here
// from the recorded caches instead of a GPU) and the replay visit the same configurations in the
// same order, from the same starts, with the same budget accounting.
#include "tuning/size_search.h"

#include <gtest/gtest.h>

#include <filesystem>

#include "interop/interop.h"
#include "interop/recorded.h"
#include "store/test_util.h"
#include "tuning/replay.h"
#include "tuning/sweep_evaluator.h"

namespace fs = std::filesystem;
using namespace tune;

namespace {

const fs::path kRecorded = fs::path(TUNE_SOURCE_DIR) / "results" / "recorded" / "transpose";
const fs::path kSpec = fs::path(TUNE_SOURCE_DIR) / "spaces" / "transpose.json";
// given out of order: both paths search by volume
const std::vector<std::string> kSizes = {"512x512", "128x128", "306x306", "256x256", "896x896"};

struct Case {
  std::string strategy;
  std::optional<std::size_t> max_fevals;
  std::optional<double> time_limit_s;  // on Kernel Tuner's simulated clock in both paths
};

tuning::Options options(const Case& c, const fs::path& db) {
  tuning::Options o;
  o.space = kSpec.string();
  for (const auto& s : kSizes) o.replay.push_back((kRecorded / (s + ".json.gz")).string());
  o.db = db.string();
  o.strategy = c.strategy;
  if (c.max_fevals) o.max_fevals = static_cast<std::int64_t>(*c.max_fevals);
  o.time_limit_s = c.time_limit_s;
  o.seed = 11;
  return o;
}

// The GPU path's search over the same caches: SweepEvaluator measuring from the recorded objectives,
// its clock Kernel Tuner's simulated one (first visits cost their recorded compile + verification
// + benchmark time). `earlier`: what an earlier run stored, every second configuration the replay
// visited at each size (so that a resumed search answers some of its visits from the database,
// whatever configurations the strategy visits); none when empty.
std::vector<tuning::SizeOutcome> gpu_path(const tuning::Options& o, const tuning::Prepared& p,
                                          const std::vector<std::vector<std::size_t>>& earlier) {
  const bool resumed = !earlier.empty();
  std::vector<interop::CacheFile> caches;
  std::vector<sizes::Size> sizes;
  for (const auto& f : o.replay) {
    caches.push_back(interop::read_cache(f));
    sizes.push_back(interop::problem_size_of(caches.back().header));
  }
  tuning::SizeSearch search(p.space, tuning::search_policy(o));
  std::vector<tuning::SizeOutcome> out;
  for (std::size_t i : tuning::search_order(sizes)) {
    const interop::Recorded rec = interop::recorded_results(caches[i], p.space);
    std::map<std::size_t, std::optional<double>> stored;
    if (resumed) {
      const std::vector<std::size_t>& visited = earlier.at(out.size());
      for (std::size_t j = 0; j < visited.size(); j += 2) stored[visited[j]] = rec.objective[visited[j]];
    }
    double clock_ms = 0;
    tuning::SweepEvaluator ev(
        stored, [&](std::size_t c) { return rec.objective[c]; }, [&] { return clock_ms / 1000.0; });
    // the simulated clock advances on every first visit, stored or measured, as in the replay
    struct Clocked : search::Evaluator {
      tuning::SweepEvaluator& inner;
      const interop::Recorded& rec;
      double& clock_ms;
      Clocked(tuning::SweepEvaluator& e, const interop::Recorded& r, double& c) : inner(e), rec(r), clock_ms(c) {}
      std::optional<double> evaluate(std::size_t c) override {
        clock_ms += rec.cost_ms[c];
        return inner.evaluate(c);
      }
      double elapsed_s() const override { return inner.elapsed_s(); }
    } clocked(ev, rec, clock_ms);
    out.push_back(search.search(sizes[i], clocked));
    if (resumed) {
      EXPECT_LT(ev.measured(), out.back().evaluated.size());
    }
  }
  return out;
}

}  // namespace

TEST(SizeSearch, OrderIsByVolumeThenDimensions) {
  std::vector<sizes::Size> s = {sizes::Size::parse_label("64x64"), sizes::Size::parse_label("16x16"),
                                sizes::Size::parse_label("32x128"), sizes::Size::parse_label("128x32"),
                                sizes::Size::parse_label("16x16")};
  EXPECT_EQ(tuning::search_order(s), (std::vector<std::size_t>{1, 4, 2, 0, 3}));  // 32x128, 64x64, 128x32: one volume
}

TEST(SizeSearch, GpuPathAndReplayVisitTheSameConfigurationsInTheSameOrder) {
  for (const Case& c : {Case{"greedy_ils", 25, {}}, Case{"random_sample", 12, {}}, Case{"bayes_opt", 15, {}},
                        Case{"simulated_annealing", {}, 3.0}, Case{"genetic_algorithm", 30, {}}})
    for (bool resumed : {false, true}) {
      SCOPED_TRACE(c.strategy + (resumed ? " (resumed)" : ""));
      store::testing::TempDir t;
      const auto o = options(c, t.path() / "r.db");
      const auto prepared = tuning::validate(o);
      const auto replayed = tuning::replay(o, prepared);
      std::vector<std::vector<std::size_t>> earlier;
      if (resumed)
        for (const auto& r : replayed) earlier.push_back(r.evaluated);
      const auto gpu = gpu_path(o, prepared, earlier);
      ASSERT_EQ(replayed.size(), gpu.size());
      for (std::size_t k = 0; k < gpu.size(); ++k) {
        SCOPED_TRACE(gpu[k].size.label());
        EXPECT_EQ(replayed[k].size, gpu[k].size);
        EXPECT_EQ(replayed[k].starts, gpu[k].starts);
        EXPECT_EQ(replayed[k].seeded_from, gpu[k].seeded_from);
        EXPECT_EQ(replayed[k].evaluated, gpu[k].evaluated);
        EXPECT_EQ(replayed[k].best, gpu[k].best);
        if (c.max_fevals) {
          EXPECT_LE(gpu[k].evaluated.size(), *c.max_fevals);
        }
        if (k > 0) {
          EXPECT_FALSE(gpu[k].starts.empty());  // seeded from the smaller sizes
        }
      }
    }
}

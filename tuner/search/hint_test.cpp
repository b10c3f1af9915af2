// Compile-ahead hints (Context::hint, Evaluator::prefetch): a GPU run compiles what a strategy
// hints while it measures. The hints must never change the search, and must name what the search
// evaluates next often enough to hide compilation: measured here on a real space (convolution_milo
// on an A100) for the default strategy and the greedy climbers.
#include <gtest/gtest.h>

#include <cstdio>
#include <set>

#include "search/replay_fixture.h"

namespace tune::search {
namespace {

using testing::Problem;

// Replays a cache and models the GPU's compile-ahead: a pool of kWorkers compilers starts the
// first kWorkers configurations of each hint at once (they stay compiled); the rest wait in a
// queue that the next hint replaces. An evaluation is a hit when its configuration was started
// or was still queued, before the previous evaluation began.
class Hinted : public Evaluator {
 public:
  Hinted(const Problem& p, bool wants) : table_(p.objective, p.cost_s), wants_(wants) {}
  std::optional<double> evaluate(std::size_t config) override {
    visits.push_back(config);
    // A hit: hinted before the previous evaluation began, so its compile overlapped at least one
    // whole evaluation (a hint just before its own evaluation hides nothing).
    if (before_.contains(config))
      ++hits;
    else
      misses.push_back(visits.size() - 1);
    before_ = ahead_;
    before_.insert(queued_.begin(), queued_.end());
    return table_.evaluate(config);
  }
  double elapsed_s() const override { return table_.elapsed_s(); }
  bool wants_prefetch() const override { return wants_; }
  void prefetch(const std::vector<std::size_t>& configs) override {
    ++prefetches;
    EXPECT_LE(configs.size(), Context::kHint);
    queued_.clear();
    for (std::size_t i = 0; i < configs.size(); ++i) (i < kWorkers ? ahead_ : queued_).insert(configs[i]);
    for (std::size_t c : configs) EXPECT_FALSE(std::find(visits.begin(), visits.end(), c) != visits.end());
  }
  std::vector<std::size_t> visits;
  std::size_t hits = 0, prefetches = 0;
  std::vector<std::size_t> misses;  // positions in visits

 private:
  TableEvaluator table_;
  bool wants_;
  std::set<std::size_t> ahead_, queued_, before_;
  static constexpr std::size_t kWorkers = 16;  // the GPU machine's cores
};

struct Case {
  const char* strategy;
  double min_hit_rate;  // share of evaluations hinted before they were asked for
};

class Hints : public ::testing::TestWithParam<Case> {};

TEST_P(Hints, NeverChangeTheSearchAndNameWhatComesNext) {
  const Problem& p = testing::convolution();
  for (std::uint64_t seed : {1, 2, 3}) {
    Hinted plain(p, false), hinted(p, true);
    Context a(p.space, plain, Budget{60, std::nullopt}, seed), b(p.space, hinted, Budget{60, std::nullopt}, seed);
    run(GetParam().strategy, a);
    run(GetParam().strategy, b);
    EXPECT_EQ(plain.visits, hinted.visits) << GetParam().strategy << " seed " << seed;
    EXPECT_EQ(plain.prefetches, 0u);
    ASSERT_GT(hinted.prefetches, 0u);
    const double rate = static_cast<double>(hinted.hits) / static_cast<double>(hinted.visits.size());
    std::string missed;
    for (std::size_t m : hinted.misses) missed += " " + std::to_string(m);
    std::printf("%s seed %llu: %zu of %zu evaluations hinted ahead (%.0f%%); not hinted:%s\n", GetParam().strategy,
                static_cast<unsigned long long>(seed), hinted.hits, hinted.visits.size(), 100 * rate, missed.c_str());
    EXPECT_GE(rate, GetParam().min_hit_rate) << GetParam().strategy << " seed " << seed;
  }
}

INSTANTIATE_TEST_SUITE_P(Strategies, Hints,
                         ::testing::Values(Case{"bayes_opt", 0.55}, Case{"greedy_ils", 0.65}, Case{"greedy_mls", 0.5}),
                         [](const auto& info) { return std::string(info.param.strategy); });

}  // namespace
}  // namespace tune::search

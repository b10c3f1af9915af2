// Online tuning: the rotation and its stopping rule with a fake timer (no CUDA), and its
// candidates. With a GPU, the whole path: online_gpu_test.cpp. The result file read back by
// `tune import`: online_file_test.cpp.
#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdlib>
#include <fstream>
#include <map>
#include <numeric>
#include <set>
#include <sstream>

#include "runtime/online.h"
#include "runtime/test_util.h"
#include "tune/runtime.h"

namespace fs = std::filesystem;
using namespace tune;
using runtime::detail::OnlineRule;
using runtime::detail::Rotation;
using runtime::testing::Recorded;

namespace {

// Launch i of candidate c takes base[c] ms, the first launch of each twice that (a cold start);
// its time is read back `lag` launches later, as an event that completes later would be.
struct FakeGpu {
  std::vector<double> base;
  std::size_t lag = 3;
  std::vector<std::pair<std::size_t, double>> in_flight;
  std::vector<int> runs;

  explicit FakeGpu(std::vector<double> b) : base(std::move(b)), runs(base.size(), 0) {}
  // One application launch: reads what has completed, then launches what the rotation says.
  std::size_t launch(Rotation& r) {
    while (in_flight.size() > lag) {
      r.sample(in_flight.front().first, in_flight.front().second);
      in_flight.erase(in_flight.begin());
    }
    const std::size_t c = r.next();
    if (c < base.size()) in_flight.emplace_back(c, base[c] * (runs[c]++ == 0 ? 2.0 : 1.0));
    return c;
  }
};

}  // namespace

TEST(OnlineRotation, RotatesThenSettlesOnTheFastest) {
  Rotation r(4, OnlineRule{64, 8, 8});
  FakeGpu gpu({1.30, 1.10, 1.00, 1.02});
  std::vector<std::size_t> order(64);
  for (auto& c : order) c = gpu.launch(r);
  for (int i = 0; i < 64; ++i) EXPECT_EQ(order[i], static_cast<std::size_t>(i % 4));
  EXPECT_FALSE(r.settled());  // the last three launches are not read yet: nothing blocks on them
  std::size_t extra = 0;
  while (!r.settled() && extra < 10) {
    gpu.launch(r);
    ++extra;
  }
  ASSERT_TRUE(r.settled());
  EXPECT_LE(extra, 4u);
  EXPECT_EQ(r.winner(), 2u);
  EXPECT_DOUBLE_EQ(r.median(2), 1.00);  // the cold first launch moves neither statistic
  EXPECT_DOUBLE_EQ(r.fastest(2), 1.00);
  for (int i = 0; i < 5; ++i) EXPECT_EQ(gpu.launch(r), 2u);
  // The cost: every sample's time beyond the winner's median.
  double want = 0;
  for (std::size_t c = 0; c < 4; ++c)
    for (double ms : r.samples(c)) want += ms - 1.00;
  EXPECT_NEAR(r.extra_ms(), want, 1e-9);
  EXPECT_GT(r.extra_ms(), 16 * 0.30);
}

// Held samples are batches whose noise goes both ways: the median ranks the candidates, so one
// lucky sample does not win; and a rival must be kMargin faster than the table's pick (candidate
// 0) to replace it.
TEST(OnlineRotation, TheMedianRanksAndThePickNeedsAClearRival) {
  const auto settle = [](const std::vector<std::vector<double>>& per_candidate) {
    Rotation r(per_candidate.size(), OnlineRule{16, 4, 8});
    std::vector<std::size_t> next(per_candidate.size(), 0);
    for (int i = 0; i < 64 && !r.settled(); ++i) {
      const std::size_t c = r.next();
      r.sample(c, per_candidate[c].at(next[c]++ % per_candidate[c].size()));
    }
    EXPECT_TRUE(r.settled());
    return r.winner();
  };
  // Candidate 1 has the fastest sample (0.95) but is the slower kernel: its median is the higher.
  EXPECT_EQ(settle({{1.00, 1.01, 1.00, 1.01}, {0.95, 1.06, 1.05, 1.06}}), 0u);
  EXPECT_EQ(settle({{1.05, 1.06, 1.05, 1.06}, {1.00, 1.01, 1.12, 1.00}}), 1u);
  // Within kMargin of the pick: the pick stays.
  EXPECT_EQ(settle({{1.000, 1.01, 1.00, 1.00}, {0.995, 0.995, 0.995, 0.995}}), 0u);
  EXPECT_EQ(settle({{1.000, 1.01, 1.00, 1.00}, {0.980, 0.98, 0.98, 0.98}}), 1u);
}

// Successive halving: one sample each, then the best `finalists` share the launches left; the
// winner is the finalist with the lowest median, not the candidate with the luckiest first sample.
TEST(OnlineRotation, TheBestOfTheFirstRoundShareTheRest) {
  // Candidates 0..7; candidate 5's first sample is lucky (0.90), its kernel the slower (1.08).
  Rotation r(8, OnlineRule{32, 1, 8, 1, false, 3});
  ASSERT_TRUE(r.two_rounds());
  const std::vector<double> base{1.10, 1.20, 1.00, 1.30, 1.25, 1.08, 1.40, 1.02};
  std::vector<std::size_t> order;
  int launch = 0;
  while (!r.settled() && launch < 40) {
    const std::size_t c = r.next();
    order.push_back(c);
    r.sample(c, c == 5 && r.samples(5).empty() ? 0.90 : base[c]);
    ++launch;
  }
  ASSERT_TRUE(r.settled());
  EXPECT_EQ(launch, 32);  // no launch beyond the budget: every sample came back at once
  for (std::size_t i = 0; i < 8; ++i) EXPECT_EQ(order[i], i);
  // The cut: by the first samples, 5 (0.90), 2 (1.00) and 7 (1.02); they share 24 launches.
  EXPECT_EQ(r.finalists(), (std::vector<std::size_t>{5, 2, 7}));
  for (std::size_t i = 8; i < 32; ++i) EXPECT_EQ(order[i], r.finalists()[(i - 8) % 3]);
  for (std::size_t c : {2, 5, 7}) EXPECT_EQ(r.samples(c).size(), 9u);
  for (std::size_t c : {2, 5, 7}) EXPECT_EQ(r.launches_of(c), 9u);  // their scratch placements in turn
  EXPECT_EQ(r.samples(0).size(), 1u);
  EXPECT_EQ(r.launches_of(0), 1u);
  EXPECT_EQ(r.winner(), 2u);
  EXPECT_DOUBLE_EQ(r.median(5), 1.08);
}

// The cut needs the first round's samples: with some outstanding it is pending (the runtime waits
// for them); cut without them, candidates whose samples are not back rank last.
TEST(OnlineRotation, TheCutWaitsForTheFirstRoundOrRanksTheMissingLast) {
  Rotation r(6, OnlineRule{18, 1, 6, 1, false, 2});
  for (std::size_t i = 0; i < 6; ++i) EXPECT_EQ(r.next(), i);
  EXPECT_TRUE(r.cut_pending());
  for (std::size_t c : {0, 1, 2, 4}) r.sample(c, 1.0 + 0.1 * double(c));
  r.sample(5, 0.5);
  EXPECT_TRUE(r.cut_pending());  // candidate 3's sample is still out
  r.sample(3, -1);               // its events failed: no sample, nothing outstanding
  EXPECT_FALSE(r.cut_pending());
  EXPECT_EQ(r.next(), 5u);
  EXPECT_EQ(r.finalists(), (std::vector<std::size_t>{5, 0}));
  // Not waited for: 0 and 1 are out when the cut comes, so 2 and 3 (by score) are the finalists.
  Rotation s(4, OnlineRule{12, 1, 4, 1, false, 2});
  for (std::size_t i = 0; i < 4; ++i) s.next();
  s.sample(2, 1.2);
  s.sample(3, 1.1);
  EXPECT_TRUE(s.cut_pending());
  s.next();
  EXPECT_EQ(s.finalists(), (std::vector<std::size_t>{3, 2}));
  EXPECT_FALSE(s.cut_pending());
}

TEST(OnlineRotation, ACandidateWithoutEnoughSamplesIsLaunchedAgain) {
  Rotation r(2, OnlineRule{16, 8, 8});
  for (int i = 0; i < 16; ++i) {
    const std::size_t c = r.next();
    r.sample(c, c == 1 && i < 4 ? -1.0 : 1.0 + double(c));  // two of candidate 1's events failed
  }
  EXPECT_FALSE(r.settled());
  EXPECT_EQ(r.samples(1).size(), 6u);
  for (int i = 0; i < 2; ++i) {
    EXPECT_EQ(r.next(), 1u);
    r.sample(1, 2.0);
  }
  ASSERT_TRUE(r.settled());
  EXPECT_EQ(r.winner(), 0u);
}

// A batched sample lasts about kSampleMs: a 2 us launch gets 25 launches, one of 50 us or more
// none beside the application's own (batch 1), and the batch is capped.
TEST(OnlineRotation, BatchesLastAboutFiftyMicroseconds) {
  EXPECT_EQ(runtime::detail::batch_for(0.002), 25);
  EXPECT_EQ(runtime::detail::batch_for(0.003), 17);
  EXPECT_EQ(runtime::detail::batch_for(0.05), 1);
  EXPECT_EQ(runtime::detail::batch_for(4.0), 1);
  EXPECT_EQ(runtime::detail::batch_for(0.0001), runtime::detail::kMaxBatch);
  EXPECT_EQ(runtime::detail::batch_for(0), runtime::detail::kMaxBatch / 8);  // no time known
  EXPECT_EQ(runtime::detail::batch_for(std::nan("")), runtime::detail::kMaxBatch / 8);
  EXPECT_THROW(Rotation(2, OnlineRule{64, 2, 8, 0}), std::invalid_argument);
  EXPECT_THROW(Rotation(2, OnlineRule{64, 2, 8, runtime::detail::kMaxBatch + 1}), std::invalid_argument);
}

// With batches every sample's launches are extra work: the cost is the application's launches
// beyond the winner's time plus each batch's launches (batch / 2 untimed, batch timed).
TEST(OnlineRotation, TheCostCountsTheBatches) {
  Rotation r(2, OnlineRule{8, 2, 8, 10});
  for (int i = 0; i < 8; ++i) {
    const std::size_t c = r.next();
    r.sample(c, c == 0 ? 0.003 : 0.002);
  }
  ASSERT_TRUE(r.settled());
  EXPECT_EQ(r.winner(), 1u);
  EXPECT_NEAR(r.extra_ms(), 4 * (0.001 + 15 * 0.003) + 4 * (15 * 0.002), 1e-12);
}

// Measured, what led up to each batch (the L2 reset and the untimed launches) replaces the estimate
// of half a batch; a sample whose lead was not read falls back to it.
TEST(OnlineRotation, TheCostCountsWhatLedUpToEachBatch) {
  Rotation r(2, OnlineRule{8, 2, 8, 10});
  for (int i = 0; i < 8; ++i) {
    const std::size_t c = r.next();
    r.sample(c, c == 0 ? 0.003 : 0.002, i == 7 ? -1.0 : 0.04);
  }
  ASSERT_TRUE(r.settled());
  EXPECT_EQ(r.winner(), 1u);
  // Candidate 1 took launches 1, 3, 5 and 7: the last one's lead is the estimate, 5 x 0.002.
  EXPECT_NEAR(r.extra_ms(), 4 * (0.001 + 10 * 0.003) + 4 * (10 * 0.002) + 7 * 0.04 + 5 * 0.002, 1e-12);
}

// Sized per size (batch 0), a launch long enough to be a sample alone is still timed behind the
// hold on the scratch buffers, after the L2 reset and one untimed launch, as tune times it; asked
// for batch 1, the application's launch is the sample.
TEST(OnlineRotation, LongLaunchesAreHeldUnlessSingleLaunchesAreAsked) {
  runtime::OnlineOptions o;
  const OnlineRule sized = runtime::detail::online_rule(o, 0.2);
  EXPECT_EQ(sized.batch, 1);
  EXPECT_TRUE(sized.held());
  EXPECT_EQ(runtime::detail::untimed_launches(sized.batch), 1);
  EXPECT_TRUE(runtime::detail::online_rule(o, 0.002).held());
  o.batch = 1;
  EXPECT_FALSE(runtime::detail::online_rule(o, 0.2).held());
  o.batch = 8;
  EXPECT_TRUE(runtime::detail::online_rule(o, 0.2).held());
  EXPECT_EQ(runtime::detail::untimed_launches(8), 4);
  // Held at batch 1: the cost counts the timed launch and the untimed one (estimated when unread).
  Rotation r(2, OnlineRule{4, 2, 8, 1, true});
  for (int i = 0; i < 4; ++i) {
    const std::size_t c = r.next();
    r.sample(c, c == 0 ? 0.3 : 0.2);
  }
  ASSERT_TRUE(r.settled());
  EXPECT_NEAR(r.extra_ms(), 2 * (0.1 + 2 * 0.3) + 2 * (2 * 0.2), 1e-12);
}

// A placement gives outputs buffers of their own and inputs copies; scalars, tensor maps and empty
// buffers keep the application's, and so do inputs when memory is short (at most half the free).
TEST(OnlineRotation, PlacementsCopyInputsAndGiveOutputsTheirOwn) {
  using runtime::detail::scratch_use, runtime::detail::ScratchUse;
  EXPECT_EQ(scratch_use(false, true, false, 10, true), ScratchUse::output);
  EXPECT_EQ(scratch_use(false, true, false, 10, false), ScratchUse::output);
  EXPECT_EQ(scratch_use(false, false, false, 10, true), ScratchUse::input_copy);
  EXPECT_EQ(scratch_use(false, false, false, 10, false), ScratchUse::none);
  EXPECT_EQ(scratch_use(true, false, false, 1, true), ScratchUse::none);
  EXPECT_EQ(scratch_use(false, false, true, 1, true), ScratchUse::none);
  EXPECT_EQ(scratch_use(false, true, false, 0, true), ScratchUse::none);
  EXPECT_TRUE(runtime::detail::scratch_fits(500, 1000));
  EXPECT_FALSE(runtime::detail::scratch_fits(501, 1000));
  EXPECT_FALSE(runtime::detail::scratch_fits(1, 0));
}

// The table knows how long the pick takes near a size: its expected time is the nearest measured
// size's best time scaled by elements and by the pick's regret, which sizes the batches.
TEST(OnlineRotation, ThePickCarriesItsExpectedTime) {
  Recorded rec;
  const auto table = runtime::detail::load_table(rec.table, rec.spec);
  const auto& dev = table.devices.at(0);
  const tune_select::Point& e = dev.entries.at(dev.entries.size() / 2);
  const auto at = runtime::detail::select(table, dev.name, dev.cc_major, dev.cc_minor, {e.x, e.y, e.z});
  ASSERT_EQ(at.match, runtime::Match::exact);
  EXPECT_NEAR(at.expected_ms, e.time_ms, 1e-3 * e.time_ms);  // the decided configuration's time there
  const auto big = runtime::detail::select(table, dev.name, dev.cc_major, dev.cc_minor, {e.x + 1, e.y * 2, e.z});
  ASSERT_NE(big.match, runtime::Match::exact);
  const auto near = std::find_if(dev.entries.begin(), dev.entries.end(), [&](const tune_select::Point& p) {
    return std::array<long long, 3>{p.x, p.y, p.z} == big.measured;
  });
  ASSERT_NE(near, dev.entries.end());
  const double elements = double(e.x + 1) * double(e.y * 2) / (double(near->x) * double(near->y) * double(near->z));
  EXPECT_NEAR(big.expected_ms, near->best_ms * elements * big.regret, 1e-9);
  EXPECT_GE(big.regret, 1.0);
}

// Options that no size could settle with are refused when the kernel is made, naming the field,
// not at the first launch at a size without an exact entry.
TEST(OnlineOptions, ARuleThatCannotSettleIsRefusedWhenTheKernelIsMade) {
  Recorded rec;
  const auto made = [&](auto change) {
    runtime::Options o;
    o.disk_cache = false;
    o.online.enabled = true;
    change(o.online);
    try {
      runtime::Kernel k(runtime::testing::spec_path(), rec.table, o);
    } catch (const runtime::Error& e) {
      return std::string(e.what());
    }
    return std::string();
  };
  EXPECT_EQ(made([](runtime::OnlineOptions&) {}), "");
  EXPECT_EQ(made([](runtime::OnlineOptions& o) { o.batch = runtime::detail::kMaxBatch; }), "");
  EXPECT_NE(made([](runtime::OnlineOptions& o) { o.batch = -1; }).find("Options::online: batch"), std::string::npos);
  EXPECT_NE(made([](runtime::OnlineOptions& o) { o.batch = runtime::detail::kMaxBatch + 1; }).find("batch"),
            std::string::npos);
  EXPECT_NE(made([](runtime::OnlineOptions& o) { o.min_samples = 0; }).find("min_samples"), std::string::npos);
  EXPECT_NE(made([](runtime::OnlineOptions& o) { o.launches = 4, o.min_samples = 8; }).find("launches"),
            std::string::npos);
  // off, the options are not read
  runtime::Options off;
  off.disk_cache = false;
  off.online.batch = -1;
  if (std::getenv("TUNE_ONLINE") == nullptr) {
    EXPECT_NO_THROW(runtime::Kernel(runtime::testing::spec_path(), rec.table, off));
  }
}

TEST(OnlineRotation, CandidatesAreCappedSoEachGetsItsSamples) {
  EXPECT_EQ(Rotation(20, OnlineRule{64, 8, 16}).size(), 8u);
  EXPECT_EQ(Rotation(20, OnlineRule{64, 4, 6}).size(), 6u);
  EXPECT_EQ(Rotation(3, OnlineRule{64, 8, 8}).size(), 3u);
  EXPECT_THROW(Rotation(0, OnlineRule{}), std::invalid_argument);
  EXPECT_THROW(Rotation(2, OnlineRule{4, 8, 8}), std::invalid_argument);
  EXPECT_THROW(Rotation(2, OnlineRule{64, 0, 8}), std::invalid_argument);
}

TEST(OnlineRotation, CandidatesStartWithThePickAndSpreadTheModelsRanking) {
  Recorded rec;
  const auto table = runtime::detail::load_table(rec.table, rec.spec);
  using Size3 = std::array<long long, 3>;
  for (const Size3& size : {Size3{1000, 999, 1}, Size3{7246, 961, 1}, Size3{5176, 1337, 1}, Size3{300, 4000, 1}}) {
    SCOPED_TRACE(std::to_string(size[0]) + "x" + std::to_string(size[1]));
    const auto pick = runtime::detail::select(table, "NVIDIA H200", 9, 0, size);
    const auto v = runtime::detail::online_candidates(table, "NVIDIA H200", 9, 0, pick, size, 8);
    ASSERT_EQ(v.size(), 8u);
    EXPECT_EQ(v.front(), pick.variant);
    for (std::size_t i = 0; i < v.size(); ++i)
      for (std::size_t j = i + 1; j < v.size(); ++j) EXPECT_NE(v[i], v[j]);
    const auto ranked = runtime::detail::top_candidates(table, "NVIDIA H200", 9, 0, size, 1000);
    ASSERT_FALSE(ranked.empty());
    ASSERT_EQ(ranked.front().variant, pick.variant);
    // every alignment of the ranking keeps its best two
    std::map<std::array<long long, 3>, int> kept;
    for (const auto& r : ranked)
      if (kept[r.align]++ < 2) {
        EXPECT_TRUE(std::find(v.begin(), v.end(), r.variant) != v.end()) << "variant " << r.variant << " is missing";
      }
    EXPECT_GE(kept.size(), 2u);
    // in the ranking's order
    std::size_t at = 0;
    for (std::size_t i = 1; i < v.size(); ++i) {
      const auto it = std::find_if(ranked.begin(), ranked.end(), [&](const auto& r) { return r.variant == v[i]; });
      ASSERT_NE(it, ranked.end());
      EXPECT_GT(static_cast<std::size_t>(it - ranked.begin()), at);
      at = static_cast<std::size_t>(it - ranked.begin());
    }
  }
}

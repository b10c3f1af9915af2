// The verdicts behind `tune best`, the header, the report and the flags: one objective (the mean,
// as Kernel Tuner's `time`), ties, stored decisions, the tie-break across sizes, flags of the data.
#include "query/verdict.h"

#include <gtest/gtest.h>

#include "query/flags.h"
#include "query/query.h"
#include "store/test_util.h"

using namespace tune;

namespace {

struct Db {
  store::testing::TempDir dir;
  store::Store db = store::Store::open(dir.file("v.db"), store::Store::Mode::read_write);
  std::int64_t run = db.begin_run(store::RunInfo{});

  std::int64_t add(const std::string& params, const std::string& size, std::vector<float> samples,
                   std::optional<double> objective = {}, std::optional<double> gbps = {},
                   const std::string& measured_at = "") {
    store::Measurement m;
    m.config_id = db.upsert_configuration_text("k", "h", params);
    m.run_id = run;
    m.device = "GPU";
    m.size = sizes::Size::parse_label(size);
    m.samples_ms = std::move(samples);
    m.objective = objective;
    m.gbps = gbps;
    m.measured_at = measured_at;
    db.record(m);
    return m.config_id;
  }

  // a stored decision at `size`: `winner` chosen among `candidates` by a re-measurement at `noise`
  void decide(const std::string& size, std::int64_t winner, std::vector<store::Decision::Candidate> candidates,
              double noise) {
    store::Decision dec;
    dec.run_id = run;
    dec.kernel = "k";
    dec.device = "GPU";
    dec.size = size;
    dec.winner_id = winner;
    dec.candidates = std::move(candidates);
    dec.rounds = 10;
    dec.noise = noise;
    db.record_decision(dec);
  }
};

std::vector<float> around(float v, float spread = 0.0f) {
  return {v - spread, v, v + spread, v, v - spread, v + spread};
}

// samples whose mean is known within about 0.56% (95%): the tie-break may use a configuration
// that close to the winner
std::vector<float> noisy(float v) { return around(v, 0.006f * v); }

const std::string A = R"({"t":1})", B = R"({"t":2})", C = R"({"t":3})";

}  // namespace

TEST(Verdict, TheObjectiveIsTheMeanNotTheMedian) {
  Db d;
  // A: median 1.0 but mean 1.6 (one slow sample); B: 1.2 throughout
  d.add(A, "64", {1.0f, 1.0f, 1.0f, 1.0f, 1.0f, 4.0f});
  d.add(B, "64", around(1.2f));
  auto v = query::verdicts(d.db, "k", "GPU");
  ASSERT_EQ(v.size(), 1u);
  EXPECT_EQ(v[0].winner().params, B);  // 1.2 < 1.6: the mean decides
  auto best = query::best(d.db, {"k", "GPU", "64"});
  ASSERT_EQ(best.size(), 1u);
  EXPECT_EQ(best[0].params, B);
  EXPECT_DOUBLE_EQ(best[0].time_ms, 1.2000000476837158);  // the stored objective (float samples)
}

TEST(Verdict, AnImportedTimeIsTheObjectiveEvenWhenItsSamplesSaySomethingElse) {
  Db d;
  // Kernel Tuner's `time` is what it ranks by: 50.36 vs 50.50, whatever the samples' median
  d.add(A, "64", {49.0f, 49.6f, 49.7f, 53.0f}, 50.36);
  d.add(B, "64", {49.5f, 49.6f, 49.64f, 53.5f}, 50.50);
  d.add(C, "64", {60.0f}, 60.0);
  auto best = query::best(d.db, {"k", "GPU", {}});
  ASSERT_EQ(best.size(), 1u);
  EXPECT_EQ(best[0].params, A);
  EXPECT_DOUBLE_EQ(best[0].time_ms, 50.36);
  EXPECT_EQ(best[0].tied, std::vector<std::string>{B});  // 0.3% apart: tied, and said so
  EXPECT_TRUE(best[0].winner.empty());                   // the winner is the one used
}

TEST(Verdict, TiesAreBrokenTowardsTheNeighbouringSizesChoice) {
  Db d;
  // A wins alone at 64; B wins at 128 with A within 0.4%; A wins at 256: A is used at every size
  d.add(A, "64", noisy(1.000f), {}, 10.0);
  d.add(B, "64", noisy(1.100f), {}, 9.1);
  d.add(A, "128", noisy(2.008f));
  d.add(B, "128", noisy(2.000f));
  d.add(A, "256", noisy(4.000f));
  d.add(B, "256", noisy(4.010f));
  auto best = query::best(d.db, {"k", "GPU", {}});
  ASSERT_EQ(best.size(), 3u);
  for (const auto& b : best) EXPECT_EQ(b.params, A) << b.size;
  EXPECT_TRUE(best[0].tied.empty());
  EXPECT_EQ(best[1].winner, B);  // the fastest at 128, said so
  EXPECT_EQ(best[1].tied, std::vector<std::string>{B});
  EXPECT_TRUE(best[2].winner.empty());  // A is the winner there itself
  // no flag: the configuration used never changes, and A and B trade places within the noise
  EXPECT_TRUE(query::refresh_flags(d.db, "k", "GPU").empty());
}

// A new choice, where the kept one is no longer tied, is the tied one fastest over that size and
// its neighbours: not one tied there and at the sizes after it that wins at none of them (an
// earlier rule), nor a winner by chance that is far behind at both neighbours.
TEST(Verdict, WhereTheKeptOneDropsOutTheFastestAroundIsUsed) {
  Db d;
  const std::string D = R"({"t":4})";
  d.add(A, "64", noisy(1.000f));
  d.add(C, "64", noisy(1.200f));
  d.add(A, "128", noisy(2.300f));
  d.add(B, "128", noisy(2.000f));
  d.add(C, "128", noisy(2.010f));
  d.add(B, "256", noisy(4.500f));
  d.add(C, "256", noisy(4.010f));
  d.add(D, "256", noisy(4.000f));
  auto best = query::best(d.db, {"k", "GPU", {}});
  ASSERT_EQ(best.size(), 3u);
  EXPECT_EQ(best[0].params, A);
  // C is tied at 128 and 256, B at 128 only: the longest-tied rule used C at both; B's mean
  // over 128 and 256 (1.0625) is below C's over 64..256 (1.069)
  EXPECT_EQ(best[1].params, B);
  EXPECT_EQ(best[1].tied, std::vector<std::string>{C});
  EXPECT_EQ(best[2].params, D);
  EXPECT_EQ(best[2].tied, std::vector<std::string>{C});

  // a winner by chance at 512: 0.3% ahead of C there, 8% behind at 256 and 1024
  d.add(B, "512", noisy(7.976f));
  d.add(C, "512", noisy(8.000f));
  d.add(D, "512", noisy(8.700f));
  d.add(B, "1024", noisy(17.28f));
  d.add(C, "1024", noisy(16.00f));
  best = query::best(d.db, {"k", "GPU", {}});
  ASSERT_EQ(best.size(), 5u);
  EXPECT_EQ(best[3].winner, B);
  EXPECT_EQ(best[3].params, C);
}

// Within the 1% margin is not enough where the size's noise is smaller: B is 0.4% ahead of A at 128,
// known within 0.05%, so B is used there and A is reported as tied; with samples as noisy as the
// difference, A is kept (above).
TEST(Verdict, ATiedOneBeyondTheSizesNoiseIsNotKept) {
  Db d;
  d.add(A, "64", around(1.000f, 0.0005f));
  d.add(B, "64", around(1.100f, 0.0005f));
  d.add(A, "128", around(2.008f, 0.001f));
  d.add(B, "128", around(2.000f, 0.001f));
  auto best = query::best(d.db, {"k", "GPU", {}});
  ASSERT_EQ(best.size(), 2u);
  EXPECT_EQ(best[0].params, A);
  EXPECT_EQ(best[1].params, B);
  EXPECT_EQ(best[1].tied, std::vector<std::string>{A});  // tied by the margin, and said so
  EXPECT_LT(best[1].noise, 0.001);
}

TEST(Verdict, AStoredDecisionHoldsUntilALaterMeasurementAtItsSize) {
  Db d;
  const auto a = d.add(A, "64", around(1.00f, 0.001f));
  const auto b = d.add(B, "64", around(1.05f, 0.001f));  // 5% apart: not tied by the samples
  const auto decide = [&] {                              // the re-measurement tied them
    d.decide("64", a, {{a, 1.0, 0.06, 10, true}, {b, 1.05, 0.06, 10, true}}, 0.06);
  };
  decide();
  auto best = query::best(d.db, {"k", "GPU", {}});
  ASSERT_EQ(best.size(), 1u);
  EXPECT_TRUE(best[0].remeasured);
  EXPECT_EQ(best[0].tied, std::vector<std::string>{B});
  EXPECT_DOUBLE_EQ(best[0].noise, 0.06);
  // a later measurement at the size (here a faster C) invalidates it: decided again from the samples
  d.add(C, "64", around(0.5f, 0.001f), {}, {}, "2999-01-01T00:00:00.000Z");
  best = query::best(d.db, {"k", "GPU", {}});
  EXPECT_EQ(best[0].params, C);
  EXPECT_FALSE(best[0].remeasured);
  EXPECT_TRUE(best[0].tied.empty());
  // decisions are replaced, not accumulated
  decide();
  EXPECT_EQ(d.db.decisions("k").size(), 1u);
}

TEST(Flags, ARealChangeIsFlaggedWithItsLossOnce) {
  Db d;
  d.add(A, "1", around(1.00f), {}, 100);
  d.add(B, "1", around(1.20f), {}, 83);
  d.add(A, "2", around(1.30f), {}, 77);  // A is 30% slower than B at 2
  d.add(B, "2", around(1.00f), {}, 100);
  d.add(B, "3", around(1.00f), {}, 100);  // A has no result at 3
  auto flags = query::refresh_flags(d.db, "k", "GPU");
  ASSERT_EQ(flags.size(), 1u);
  EXPECT_EQ(flags[0].size, "2");
  EXPECT_EQ(flags[0].kind, store::FlagKind::best_changes);
  EXPECT_NE(flags[0].text.find("is 30.0% slower here"), std::string::npos) << flags[0].text;
  // flags belong to the data: refreshing again (a re-run that measured nothing) stores them once
  query::refresh_flags(d.db, "k", "GPU");
  EXPECT_EQ(d.db.flags("k").size(), 1u);
  EXPECT_FALSE(d.db.flags("k")[0].run_id.has_value());
}

TEST(Flags, NoChangeFlagWhenThePreviousConfigurationIsNotSlowerHere) {
  Db d;
  d.add(A, "1", around(1.00f), {}, 100);
  d.add(B, "1", around(1.20f), {}, 83);
  // at 2 the decision (B re-measured alone) uses B, while A's single measurement reads 1.5% faster:
  // the change is not backed by a loss, so no flag says "it is -1.5% slower here"
  d.add(A, "2", around(0.985f, 0.001f), {}, 101);
  const auto b = d.add(B, "2", around(1.00f, 0.001f), {}, 100);
  d.decide("2", b, {{b, 1.0, 0.01, 10, true}}, 0.01);
  const auto v = query::verdicts(d.db, "k", "GPU");
  ASSERT_EQ(v.size(), 2u);
  ASSERT_NE(v[1].used().config_id, v[0].used().config_id) << "the test needs the used configuration to change";
  for (const auto& f : query::flags_of("k", "GPU", v)) ADD_FAILURE() << f.text;
}

TEST(Flags, ADipIsTheCurveDippingNotAConfiguration) {
  Db d;
  // the best throughput: 100, 50, 100 -> a dip at 2; at 5 only a non-best configuration collapses
  d.add(A, "1", around(1.0f), {}, 100);
  d.add(A, "2", around(2.0f), {}, 50);
  d.add(A, "3", around(1.0f), {}, 100);
  d.add(A, "4", around(1.0f), {}, 100);
  d.add(B, "4", around(1.1f), {}, 90);
  d.add(A, "5", around(1.0f), {}, 100);
  d.add(B, "5", around(3.0f), {}, 33);
  d.add(A, "6", around(1.0f), {}, 100);
  d.add(B, "6", around(1.1f), {}, 90);
  auto flags = query::flags_of("k", "GPU", query::verdicts(d.db, "k", "GPU"));
  ASSERT_EQ(flags.size(), 1u);
  EXPECT_EQ(flags[0].size, "2");
  EXPECT_EQ(flags[0].kind, store::FlagKind::dip);
  EXPECT_NE(flags[0].text.find("50.0% below both"), std::string::npos) << flags[0].text;
}

TEST(Flags, NoDipWithinTheNoise) {
  Db d;
  // 20% lower at 2, but each size's interval is +-30%: not beyond the noise
  d.add(A, "1", {0.5f, 1.5f, 1.0f}, {}, 100);
  d.add(A, "2", {0.6f, 1.9f, 1.25f}, {}, 80);
  d.add(A, "3", {0.5f, 1.5f, 1.0f}, {}, 100);
  EXPECT_TRUE(query::flags_of("k", "GPU", query::verdicts(d.db, "k", "GPU")).empty());
}

TEST(SingleBestAcrossSizes, NamesItAndWhatEachSizeGains) {
  Db d;
  d.add(A, "1", around(1.0f));
  d.add(B, "1", around(1.5f));
  d.add(A, "2", around(2.6f));
  d.add(B, "2", around(2.0f));
  d.add(A, "3", around(1.0f));
  d.add(B, "3", around(1.6f));
  auto sb = query::single_best(query::verdicts(d.db, "k", "GPU"));
  ASSERT_TRUE(sb);
  EXPECT_EQ(sb->params, A);
  ASSERT_EQ(sb->loss.size(), 3u);
  EXPECT_NEAR(sb->loss[0], 1.0, 1e-6);
  EXPECT_NEAR(sb->loss[1], 1.3, 1e-6);  // size 2 gains 30% over A
  EXPECT_NEAR(sb->loss[2], 1.0, 1e-6);
}

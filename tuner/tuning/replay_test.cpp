#include "tuning/replay.h"
#include "tuning/size_search.h"

#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>

#include "common/error.h"
#include "common/test_data.h"
#include "interop/interop.h"
#include "query/query.h"
#include "search/search.h"
#include "store/store.h"
#include "store/test_util.h"

namespace fs = std::filesystem;
using namespace tune;

namespace {
const fs::path kTranspose = test_data::source_dir() / "results" / "recorded" / "transpose";
const fs::path kTransposeSpec = test_data::source_dir() / "spaces" / "transpose.json";

// A benchmark_hub file of data/ (a spec or a cache).
fs::path hub(const std::string& relative) { return test_data::file("benchmark_hub/" + relative); }

tuning::Options options(const fs::path& spec, const std::vector<fs::path>& caches, const fs::path& db) {
  tuning::Options o;
  o.space = spec.string();
  for (const auto& c : caches) o.replay.push_back(c.string());
  o.db = db.string();
  return o;
}

// The stored evaluations of one run, in evaluation order.
std::vector<store::StoredMeasurement> stored(const fs::path& db, std::int64_t run_id) {
  auto s = store::Store::open(db.string(), store::Store::Mode::read_only);
  store::MeasurementFilter f;
  f.kernel = s.kernels().at(0);
  f.ok_only = false;
  f.run_id = run_id;
  auto rows = s.measurements(f);
  std::sort(rows.begin(), rows.end(), [](const auto& a, const auto& b) { return a.eval_order < b.eval_order; });
  return rows;
}

}  // namespace

// One objective: after a brute-force replay of a Kernel Tuner cache, `tune best` (query::best) names
// that cache's best configuration, the lowest `time` (with `tied` listing the indistinguishable).
TEST(Replay, BestNamesEachCachesBestAfterABruteForceReplay) {
  for (const char* name : {"convolution_milo", "dedispersion_milo"})
    for (const char* gpu : {"A100", "A4000", "MI250X"}) {
      SCOPED_TRACE(std::string(name) + "/" + gpu);
      store::testing::TempDir t;
      const fs::path cache = hub(std::string(name) + "/" + gpu + ".json.gz");
      auto o = options(hub(std::string(name) + ".json"), {cache}, t.path() / "r.db");
      const auto r = tuning::replay(o, tuning::validate(o));
      ASSERT_EQ(r.size(), 1u);
      const auto file = interop::read_cache(cache);
      double best = INFINITY;
      for (const auto& e : file.entries)
        if (e.value["time"].is_number()) best = std::min(best, e.value["time"].get<double>());
      std::vector<std::string> at_best;  // configurations at exactly the best time
      for (const auto& e : file.entries)
        if (e.value["time"].is_number() && e.value["time"].get<double>() == best) {
          nlohmann::ordered_json p = nlohmann::ordered_json::object();
          for (const auto& k : file.param_names()) p[k] = e.value[k];
          at_best.push_back(store::canonical_params(p));
        }
      auto db = store::Store::open((t.path() / "r.db").string(), store::Store::Mode::read_only);
      const auto b = query::best(db, {});
      ASSERT_EQ(b.size(), 1u);
      EXPECT_DOUBLE_EQ(b[0].time_ms, best);
      EXPECT_NE(std::find(at_best.begin(), at_best.end(), b[0].params), at_best.end()) << b[0].params;
      EXPECT_TRUE(b[0].winner.empty());  // the one used is the fastest: no other size to break a tie towards
    }
}

TEST(Replay, BruteForceFindsEachCachesBest) {
  for (auto [name, gpu] : {std::pair{"convolution_milo", "MI250X"}, std::pair{"dedispersion_milo", "A100"}}) {
    SCOPED_TRACE(std::string(name) + "/" + gpu);
    store::testing::TempDir t;
    fs::path cache = hub(std::string(name) + "/" + gpu + ".json.gz");
    auto o = options(hub(std::string(name) + ".json"), {cache}, t.path() / "r.db");
    auto r = tuning::replay(o, tuning::validate(o));
    ASSERT_EQ(r.size(), 1u);
    // the cache's best, straight from the JSON: lowest numeric "time"
    auto file = interop::read_cache(cache);
    double best = INFINITY;
    for (const auto& e : file.entries)
      if (e.value["time"].is_number()) best = std::min(best, e.value["time"].get<double>());
    EXPECT_EQ(r[0].evaluated.size(), file.entries.size());
    EXPECT_DOUBLE_EQ(r[0].best_objective, best);
    auto rows = stored(t.path() / "r.db", r[0].run_id);
    EXPECT_EQ(rows.size(), file.entries.size());
    double found = INFINITY;
    for (const auto& m : rows)
      if (m.objective && m.status == store::MeasurementStatus::ok) found = std::min(found, *m.objective);
    EXPECT_DOUBLE_EQ(found, best);
  }
}

// Every stored evaluation: replayed, eval_order 0..n-1 in the strategy's order, the simulated
// clock the running sum of the recorded compile + verification + benchmark times, a strategy time.
TEST(Replay, StoresEveryEvaluationInOrderWithTheSimulatedClock) {
  store::testing::TempDir t;
  const fs::path cache = hub("dedispersion_milo/A4000.json.gz");
  auto o = options(hub("dedispersion_milo.json"), {cache}, t.path() / "r.db");
  o.strategy = "random_sample";
  o.max_fevals = 300;
  o.seed = 11;
  auto r = tuning::replay(o, tuning::validate(o));
  ASSERT_EQ(r.size(), 1u);
  ASSERT_EQ(r[0].evaluated.size(), 300u);
  auto file = interop::read_cache(cache);
  std::map<std::string, const nlohmann::ordered_json*> by_key;
  for (const auto& e : file.entries) by_key[e.key] = &e.value;

  auto rows = stored(t.path() / "r.db", r[0].run_id);
  ASSERT_EQ(rows.size(), 300u);
  auto prepared = tuning::validate(o);
  double clock = 0;
  for (std::size_t i = 0; i < rows.size(); ++i) {
    const auto& m = rows[i];
    EXPECT_EQ(m.eval_order, static_cast<std::int64_t>(i));
    EXPECT_TRUE(m.replayed);
    EXPECT_EQ(m.params, prepared.space.params_json(r[0].evaluated[i]));
    auto key = nlohmann::json::parse(m.extra)["kernel_tuner"]["key"].get<std::string>();
    const auto& e = *by_key.at(key);
    clock += e["compile_time"].get<double>() + e["verification_time"].get<double>() + e["benchmark_time"].get<double>();
    ASSERT_TRUE(m.simulated_time_ms.has_value());
    EXPECT_NEAR(*m.simulated_time_ms, clock, 1e-6 * clock);
    ASSERT_TRUE(m.strategy_time_ms.has_value());
    EXPECT_GE(*m.strategy_time_ms, 0.0);
    if (e["time"].is_number()) {
      EXPECT_DOUBLE_EQ(*m.objective, e["time"].get<double>());
    }
  }
  EXPECT_NEAR(r[0].simulated_ms, clock, 1e-6 * clock);
  auto db = store::Store::open((t.path() / "r.db").string(), store::Store::Mode::read_only);
  auto run = db.run(r[0].run_id);
  ASSERT_TRUE(run);
  EXPECT_EQ(run->kind, store::RunKind::replay);
  EXPECT_EQ(run->status, store::RunStatus::completed);
  EXPECT_EQ(run->strategy, "random_sample");
}

// Every strategy that has landed runs on a replay under both budgets; the same seed gives the
// same search, another seed another one.
TEST(Replay, StrategiesRunUnderBothBudgetsAndSeedsReproduce) {
  const fs::path spec = kTransposeSpec, cache = kTranspose / "2176x2176.json.gz";  // 397 configurations
  store::testing::TempDir t;
  const auto prepared = tuning::validate(options(spec, {cache}, t.path() / "r.db"));
  std::size_t ran = 0;
  for (const auto& name : search::strategy_names()) {
    SCOPED_TRACE(name);
    std::size_t runs = 0;
    fs::path last_db;
    auto run = [&](std::uint64_t seed, std::optional<std::int64_t> fevals, std::optional<double> limit) {
      // a database per run: the same replay into one database stores nothing the second time
      last_db = t.path() / ("r" + std::to_string(runs++) + ".db");
      auto o = options(spec, {cache}, last_db);
      o.strategy = name;
      o.seed = seed;
      o.max_fevals = fevals;
      o.time_limit_s = limit;
      auto r = tuning::replay(o, prepared);
      EXPECT_EQ(stored(o.db, r.at(0).run_id).size(), r.at(0).evaluated.size());
      return r.at(0);
    };
    tuning::SizeReplay a;
    try {
      a = run(5, 30, std::nullopt);
    } catch (const Error& e) {  // a strategy other engineers have not landed yet
      if (std::string(e.what()).find("not built yet") != std::string::npos) continue;
      throw;
    }
    ++ran;
    auto b = run(5, 30, std::nullopt);
    EXPECT_LE(a.evaluated.size(), 30u);
    EXPECT_GT(a.evaluated.size(), 0u);
    if (name == "brute_force" || name == "random_sample") {
      EXPECT_EQ(a.evaluated.size(), 30u);
    }
    EXPECT_EQ(a.evaluated, b.evaluated);
    auto distinct = a.evaluated;  // a revisit is free and no evaluation
    std::sort(distinct.begin(), distinct.end());
    EXPECT_EQ(std::unique(distinct.begin(), distinct.end()), distinct.end());
    if (name != "brute_force") {
      EXPECT_NE(a.evaluated, run(6, 30, std::nullopt).evaluated);
    }
    // a simulated-time budget of 5 s (the whole space takes about 59 s): the last evaluation
    // starts before 5 s, the space is not exhausted
    auto s = run(5, std::nullopt, 5.0);
    ASSERT_GT(s.evaluated.size(), 1u);
    EXPECT_LT(s.evaluated.size(), 374u);
    auto rows = stored(last_db, s.run_id);
    ASSERT_EQ(rows.size(), s.evaluated.size());
    EXPECT_LT(*rows[rows.size() - 2].simulated_time_ms, 5000.0);
    if (name == "brute_force" || name == "random_sample") {
      EXPECT_GE(*rows.back().simulated_time_ms, 5000.0);
    }
  }
  EXPECT_GE(ran, 2u);
}

TEST(Replay, StrategyOptionsAreValidated) {
  store::testing::TempDir t;
  auto o = options(kTransposeSpec, {kTranspose / "1152x1152.json.gz"}, t.path() / "r.db");
  o.strategy = "random_sample";
  o.strategy_options = search::parse_options({"fraction=0.05"});
  auto r = tuning::replay(o, tuning::validate(o));
  EXPECT_EQ(r.at(0).evaluated.size(), 20u);  // 0.05 of 397, rounded
  auto db = store::Store::open(o.db, store::Store::Mode::read_only);
  EXPECT_EQ(db.run(r[0].run_id)->strategy_options, R"({"fraction":"0.05"})");
  o.strategy_options = {{"popsize", "3"}};  // not an option of random_sample
  EXPECT_THROW(tuning::validate(o), InputError);
}

TEST(Replay, MissingValidConfigurationIsAnError) {
  store::testing::TempDir t;
  // the vector_add cache without its last entry
  std::ifstream in(test_data::file("kernel_tuner/test/test_cache_file.json"));
  auto doc = nlohmann::ordered_json::parse(in);
  std::string dropped = std::prev(doc["cache"].end()).key();
  doc["cache"].erase(dropped);
  std::ofstream(t.path() / "partial.json") << doc.dump();
  auto o = options(test_data::file("kernel_tuner/test/test_cache_file_T1_input.json"), {t.path() / "partial.json"},
                   t.path() / "r.db");
  try {
    tuning::run_replay(o);
    FAIL() << "a missing configuration was not reported";
  } catch (const InputError& e) {
    std::string w = e.what();
    EXPECT_NE(w.find("is missing from the cache"), std::string::npos) << w;
    EXPECT_NE(w.find("\"" + dropped + "\""), std::string::npos) << w;
    EXPECT_NE(w.find("partial.json"), std::string::npos) << w;
  }
  // a failed replay that stored nothing leaves no run row behind (issue 47, class 9)
  auto db = store::Store::open(o.db, store::Store::Mode::read_only);
  EXPECT_TRUE(db.runs().empty());
}

TEST(Replay, CacheOfAnotherSpaceIsRefused) {
  store::testing::TempDir t;
  EXPECT_THROW(tuning::run_replay(
                   options(hub("convolution_milo.json"), {hub("dedispersion_milo/A100.json.gz")}, t.path() / "r.db")),
               InputError);
}

// Several sizes: searched in order of size whatever the command's order, each starting from the
// best found at the nearest sizes searched before it; --no-seed-sizes searches each from scratch.
TEST(Replay, SizesStartFromTheirNeighboursBest) {
  store::testing::TempDir t;
  const std::vector<fs::path> caches{kTranspose / "1152x1152.json.gz", kTranspose / "512x512.json.gz",
                                     kTranspose / "896x896.json.gz"};
  auto o = options(kTransposeSpec, caches, t.path() / "seeded.db");
  o.strategy = "random_sample";
  o.max_fevals = 12;
  o.seed = 3;
  auto seeded = tuning::replay(o, tuning::validate(o));
  ASSERT_EQ(seeded.size(), 3u);
  EXPECT_EQ(seeded[0].size.label(), "512x512");
  EXPECT_EQ(seeded[1].size.label(), "896x896");
  EXPECT_EQ(seeded[2].size.label(), "1152x1152");
  EXPECT_TRUE(seeded[0].starts.empty());
  // the second size begins with the first size's best, then its second best
  ASSERT_TRUE(seeded[0].best);
  ASSERT_GE(seeded[1].evaluated.size(), 2u);
  EXPECT_EQ(seeded[1].evaluated[0], *seeded[0].best);
  EXPECT_EQ(seeded[1].starts.front(), *seeded[0].best);
  EXPECT_EQ(seeded[1].seeded_from, std::vector<std::string>{"512x512"});
  // the third: the nearest size (896) first, then 512
  EXPECT_EQ(seeded[2].seeded_from, (std::vector<std::string>{"896x896", "512x512"}));
  EXPECT_EQ(seeded[2].evaluated[0], *seeded[1].best);
  EXPECT_LE(seeded[2].starts.size(), tuning::kNeighbourSizes * tuning::kStartsPerSize);
  for (std::size_t k = 0; k < seeded[2].starts.size(); ++k) EXPECT_EQ(seeded[2].evaluated[k], seeded[2].starts[k]);
  // the stored first evaluation of 896x896 is 512x512's best configuration
  auto rows = stored(t.path() / "seeded.db", seeded[1].run_id);
  ASSERT_FALSE(rows.empty());
  EXPECT_EQ(rows[0].params, tuning::validate(o).space.params_json(*seeded[0].best));

  o.seed_sizes = false;
  o.db = (t.path() / "plain.db").string();
  auto plain = tuning::replay(o, tuning::validate(o));
  ASSERT_EQ(plain.size(), 3u);
  for (const auto& r : plain) EXPECT_TRUE(r.starts.empty());
  EXPECT_EQ(plain[0].evaluated, seeded[0].evaluated);  // the first size has no neighbour either way
  // from scratch, each size draws its own sample: the seed plus its position (size_search.h), as on
  // the GPU; a single-size replay keeps the seed as given
  EXPECT_NE(plain[1].evaluated, plain[0].evaluated);
  EXPECT_NE(plain[1].evaluated, seeded[1].evaluated);
}

// --parallel K: the strategy's batches on K simulated GPUs. Every evaluation is stored in order, each
// with its simulated GPU's finish time; a batch ends with its last, and the next batch starts there.
TEST(Replay, SimulatedGpusEvaluateBatchesAndTheClockTakesEachBatchsLongestLane) {
  store::testing::TempDir t;
  const fs::path cache = hub("dedispersion_milo/A4000.json.gz");
  auto o = options(hub("dedispersion_milo.json"), {cache}, t.path() / "r.db");
  o.strategy = "random_sample";
  o.max_fevals = 100;
  o.seed = 5;
  o.parallel = 4;
  const auto r = tuning::replay(o, tuning::validate(o));
  ASSERT_EQ(r.size(), 1u);
  ASSERT_EQ(r[0].evaluated.size(), 100u);
  const auto rows = stored(t.path() / "r.db", r[0].run_id);
  ASSERT_EQ(rows.size(), 100u);
  auto file = interop::read_cache(cache);
  std::map<std::string, double> cost;  // ms per key
  for (const auto& e : file.entries)
    cost[e.key] = e.value["compile_time"].get<double>() + e.value["verification_time"].get<double>() +
                  e.value["benchmark_time"].get<double>();
  double clock = 0, sequential = 0;
  for (std::size_t b = 0; b < rows.size(); b += 4) {  // random_sample's batches: four at a time
    std::vector<double> lane(4, 0.0);
    for (std::size_t i = b; i < b + 4; ++i) {
      const auto key = nlohmann::json::parse(rows[i].extra)["kernel_tuner"]["key"].get<std::string>();
      EXPECT_EQ(rows[i].eval_order, static_cast<std::int64_t>(i));
      auto free = std::min_element(lane.begin(), lane.end());
      *free += cost.at(key);
      sequential += cost.at(key);
      ASSERT_TRUE(rows[i].simulated_time_ms.has_value());
      EXPECT_NEAR(*rows[i].simulated_time_ms, clock + *free, 1e-6 * (clock + *free));
    }
    clock += *std::max_element(lane.begin(), lane.end());
  }
  EXPECT_NEAR(r[0].simulated_ms, clock, 1e-6 * clock);
  EXPECT_LT(clock, 0.4 * sequential);
  auto db = store::Store::open((t.path() / "r.db").string(), store::Store::Mode::read_only);
  const auto notes = nlohmann::json::parse(db.run(r[0].run_id)->notes);
  EXPECT_EQ(notes.value("parallel", 0), 4);
}

// The same seed and K give the same evaluations; bayes_opt's lanes (search/lanes.h) included.
TEST(Replay, SimulatedGpusAreRepeatableForASeed) {
  std::vector<std::vector<std::size_t>> runs;
  for (int i = 0; i < 2; ++i) {
    store::testing::TempDir t;
    auto o = options(hub("convolution_milo.json"), {hub("convolution_milo/A100.json.gz")}, t.path() / "r.db");
    o.strategy = "bayes_opt";
    o.max_fevals = 40;
    o.seed = 8;
    o.parallel = 3;
    const auto r = tuning::replay(o, tuning::validate(o));
    ASSERT_EQ(r.size(), 1u);
    EXPECT_EQ(r[0].evaluated.size(), 40u);
    runs.push_back(r[0].evaluated);
  }
  EXPECT_EQ(runs[0], runs[1]);
}

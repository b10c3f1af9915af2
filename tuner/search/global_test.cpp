// diff_evo, pso, firefly_algorithm, dual_annealing and bayes_opt on real measured spaces: the
// benchmark_hub convolution and dedispersion caches (A100), replayed with Kernel Tuner's simulated
// clock. Budgets, determinism, validity, starts, options, and search quality against random_sample.
#include <gtest/gtest.h>

#include <cstdio>
#include <ctime>
#include <filesystem>
#include <limits>
#include <map>
#include <set>

#include "common/error.h"
#include "interop/interop.h"
#include "interop/recorded.h"
#include "search/bayes_opt_parts.h"
#include "search/continuous.h"
#include "search/search.h"
#include "spec/spec.h"

using namespace tune;
using namespace tune::search;
namespace fs = std::filesystem;

namespace {

const fs::path kHub = fs::path(TUNE_SOURCE_DIR) / ".." / "shared" / "external" / "benchmark_hub";

struct Problem {
  space::Space space;
  std::vector<std::optional<double>> objective;
  std::vector<double> cost_s;
  double optimum = 0;
};

Problem load(const std::string& kernel, const std::string& gpu) {
  Problem p{space::Space::build(spec::load(kHub / (kernel + ".json"))), {}, {}, 0};
  const auto cache = interop::read_cache(kHub / kernel / (gpu + ".json.gz"));
  const auto rec = interop::recorded_results(cache, p.space);
  EXPECT_EQ(rec.missing, 0u);
  p.objective = rec.objective;
  for (double ms : rec.cost_ms) p.cost_s.push_back(ms / 1000);
  p.optimum = *rec.objective.at(rec.best.value());
  return p;
}

const Problem& problem(const std::string& kernel, const std::string& gpu = "A100") {
  static std::map<std::string, Problem> loaded;  // each cache read once per test binary
  const std::string key = kernel + "/" + gpu;
  auto it = loaded.find(key);
  if (it == loaded.end()) it = loaded.emplace(key, load(kernel, gpu)).first;
  return it->second;
}
const Problem& convolution() { return problem("convolution_milo"); }
const Problem& dedispersion() { return problem("dedispersion_milo"); }

class Recording : public Evaluator {
 public:
  explicit Recording(const Problem& p) : table_(p.objective, p.cost_s) {}
  std::optional<double> evaluate(std::size_t config) override {
    visits.push_back(config);
    began_s.push_back(table_.elapsed_s());
    return table_.evaluate(config);
  }
  double elapsed_s() const override { return table_.elapsed_s(); }
  std::vector<std::size_t> visits;
  std::vector<double> began_s;

 private:
  TableEvaluator table_;
};

struct Outcome {
  std::vector<std::size_t> visits;
  std::vector<double> began_s;
  double elapsed_s = 0;
  std::size_t evaluations = 0;
};

Outcome replay(const std::string& strategy, const Problem& p, Budget budget, std::uint64_t seed,
               StrategyOptions options = {}, std::vector<std::size_t> starts = {}) {
  Recording ev(p);
  Context ctx(p.space, ev, budget, seed, std::move(options), std::move(starts));
  Outcome o;
  o.evaluations = run(strategy, ctx);
  o.visits = ev.visits;
  o.began_s = ev.began_s;
  o.elapsed_s = ev.elapsed_s();
  return o;
}

// The best objective among the first `n` evaluations (infinity when none succeeded).
double best_of(const Problem& p, const Outcome& o, std::size_t n) {
  double best = std::numeric_limits<double>::infinity();
  for (std::size_t i = 0; i < std::min(n, o.visits.size()); ++i)
    if (const auto& v = p.objective[o.visits[i]]) best = std::min(best, *v);
  return best;
}

double mean_best(const std::string& strategy, const Problem& p, std::size_t fevals, int seeds) {
  double sum = 0;
  for (int s = 1; s <= seeds; ++s)
    sum += best_of(p, replay(strategy, p, Budget{fevals, std::nullopt}, 500 + s), fevals);
  return sum / seeds;
}

class Global : public ::testing::TestWithParam<std::string> {};

INSTANTIATE_TEST_SUITE_P(Strategies, Global,
                         ::testing::Values("diff_evo", "pso", "firefly_algorithm", "dual_annealing", "bayes_opt"));

}  // namespace

TEST_P(Global, SpendsExactlyTheEvaluationBudgetOnDistinctValidConfigurations) {
  for (const Problem* p : {&convolution(), &dedispersion()}) {
    const auto o = replay(GetParam(), *p, Budget{137, std::nullopt}, 5);
    EXPECT_EQ(o.evaluations, 137u);
    ASSERT_EQ(o.visits.size(), 137u);
    EXPECT_EQ(std::set<std::size_t>(o.visits.begin(), o.visits.end()).size(), 137u);
    for (std::size_t c : o.visits) {
      ASSERT_LT(c, p->space.size());
      EXPECT_TRUE(p->space.satisfies(p->space.config_values(c))) << p->space.params_json(c);
    }
  }
}

TEST_P(Global, StopsAtTheFirstEvaluationThatReachesTheTimeLimit) {
  const Problem& p = convolution();
  const double limit = 120.0;  // simulated seconds: some 100 evaluations of this space
  const auto o = replay(GetParam(), p, Budget{std::nullopt, limit}, 9);
  ASSERT_GT(o.visits.size(), 10u);
  for (double t : o.began_s) EXPECT_LT(t, limit);
  EXPECT_GE(o.elapsed_s, limit);
  EXPECT_LT(o.elapsed_s - p.cost_s[o.visits.back()], limit);
}

TEST_P(Global, IsDeterministicGivenTheSeed) {
  const Problem& p = dedispersion();
  const auto a = replay(GetParam(), p, Budget{150, std::nullopt}, 21);
  const auto b = replay(GetParam(), p, Budget{150, std::nullopt}, 21);
  const auto c = replay(GetParam(), p, Budget{150, std::nullopt}, 22);
  EXPECT_EQ(a.visits, b.visits);
  EXPECT_NE(a.visits, c.visits);
}

TEST_P(Global, EvaluatesTheGivenStartsFirst) {
  const Problem& p = convolution();
  const std::vector<std::size_t> starts{17, 2500, 4000};
  const auto o = replay(GetParam(), p, Budget{40, std::nullopt}, 3, {}, starts);
  ASSERT_GE(o.visits.size(), 3u);
  EXPECT_EQ(std::vector<std::size_t>(o.visits.begin(), o.visits.begin() + 3), starts);
}

TEST_P(Global, FindsBetterConfigurationsThanRandomSampling) {
  const int seeds = GetParam() == "bayes_opt" ? 4 : 10;
  for (const Problem* p : {&convolution(), &dedispersion()}) {
    const double strategy = mean_best(GetParam(), *p, 300, seeds);
    const double random = mean_best("random_sample", *p, 300, 30);
    EXPECT_LT(strategy, random) << "optimum " << p->optimum;
    EXPECT_GE(strategy, p->optimum);
  }
}

TEST_P(Global, RunsUntilTheSpaceIsExhaustedOrItsIterationsEnd) {
  // Without a budget a strategy ends by itself: every configuration evaluated (Stop), or its own
  // maxiter spent. A tiny maxiter must end it early, after its initial population.
  const Problem& p = convolution();
  const auto o = replay(GetParam(), p, Budget{}, 4, {{"maxiter", "2"}});
  EXPECT_GT(o.evaluations, 0u);
  EXPECT_LT(o.evaluations, p.space.size());
  EXPECT_EQ(std::set<std::size_t>(o.visits.begin(), o.visits.end()).size(), o.visits.size());
}

TEST(GlobalOptions, AreParsedAndBadValuesNameTheOption) {
  const Problem& p = convolution();
  auto throws_naming = [&](const std::string& strategy, StrategyOptions o, const std::string& key) {
    try {
      replay(strategy, p, Budget{30, std::nullopt}, 1, std::move(o));
      ADD_FAILURE() << strategy << " accepted a bad " << key;
    } catch (const InputError& e) {
      EXPECT_NE(std::string(e.what()).find(key), std::string::npos) << e.what();
    }
  };
  throws_naming("diff_evo", {{"method", "best3bin"}}, "method");
  throws_naming("diff_evo", {{"popsize", "0"}}, "popsize");
  throws_naming("diff_evo", {{"maxiter", "many"}}, "maxiter");
  throws_naming("pso", {{"w", "-0.5"}}, "w");
  throws_naming("pso", {{"c1", "nan"}}, "c1");
  throws_naming("firefly_algorithm", {{"gamma", "x"}}, "gamma");
  throws_naming("firefly_algorithm", {{"alpha", "-1"}}, "alpha");
  throws_naming("dual_annealing", {{"method", "Newton-CG"}}, "method");
  throws_naming("bayes_opt", {{"covariancekernel", "rbf2"}}, "covariancekernel");
  throws_naming("bayes_opt", {{"covariancelengthscale", "0"}}, "covariancelengthscale");
  throws_naming("bayes_opt", {{"method", "ucb"}}, "method");
  throws_naming("bayes_opt", {{"samplingmethod", "sobol"}}, "samplingmethod");
  throws_naming("bayes_opt", {{"popsize", "-3"}}, "popsize");

  for (const char* m : {"best1bin", "best1exp", "rand1bin", "rand1exp", "randtobest1bin", "randtobest1exp",
                        "currenttobest1bin", "currenttobest1exp", "best2bin", "best2exp", "rand2bin", "rand2exp"})
    EXPECT_EQ(replay("diff_evo", p, Budget{60, std::nullopt}, 2, {{"method", m}}).evaluations, 60u) << m;
  for (const char* m : {"COBYLA", "Powell", "Nelder-Mead", "L-BFGS-B", "compass", "hamming", "none"})
    EXPECT_EQ(replay("dual_annealing", p, Budget{60, std::nullopt}, 2, {{"method", m}}).evaluations, 60u) << m;
  for (const char* m :
       {"ei", "poi", "lcb", "multi", "multi-fast", "multi-ultrafast", "multi-advanced", "advanced_multi"})
    EXPECT_EQ(replay("bayes_opt", p, Budget{40, std::nullopt}, 2, {{"method", m}}).evaluations, 40u) << m;
  EXPECT_EQ(replay("bayes_opt", p, Budget{40, std::nullopt}, 2,
                   {{"covariancekernel", "matern52"},
                    {"covariancelengthscale", "0.5"},
                    {"samplingmethod", "random"},
                    {"popsize", "5"}})
                .evaluations,
            40u);
  EXPECT_EQ(replay("pso", p, Budget{60, std::nullopt}, 2, {{"w", "0.9"}, {"c1", "1"}, {"c2", "2"}, {"popsize", "7"}})
                .evaluations,
            60u);
  EXPECT_EQ(replay("firefly_algorithm", p, Budget{60, std::nullopt}, 2, {{"B0", "0.5"}, {"gamma", "3"}}).evaluations,
            60u);
}

TEST(GlobalBayesOpt, ThousandEvaluationsOfTheDedispersionSpaceTakeSeconds) {
  const Problem& p = dedispersion();
  const std::clock_t cpu = std::clock();
  const auto o = replay("bayes_opt", p, Budget{1000, std::nullopt}, 3);
  const double seconds = static_cast<double>(std::clock() - cpu) / CLOCKS_PER_SEC;
  EXPECT_EQ(o.evaluations, 1000u);
  EXPECT_LT(seconds, 20.0);
  std::printf("bayes_opt: 1000 evaluations of %zu configurations in %.2f s CPU (%.2f ms per evaluation)\n",
              p.space.size(), seconds, seconds);
}

TEST(GlobalBayesOpt, TheInitialSampleIsASpreadOutLatinHypercubeSizedByTheBudget) {
  const Problem& p = dedispersion();
  Rng rng(4);
  const auto lhs = bo::latin_hypercube(p.space, 20, rng);
  ASSERT_GE(lhs.size(), 15u);  // snapping may merge a few points
  EXPECT_EQ(std::set<std::size_t>(lhs.begin(), lhs.end()).size(), lhs.size());
  // Farthest-first: each point's distance to the points before it never grows.
  const Continuous box(p.space, Scale::unit);
  double previous = std::numeric_limits<double>::infinity();
  for (std::size_t i = 1; i < lhs.size(); ++i) {
    double gap = std::numeric_limits<double>::infinity();
    for (std::size_t j = 0; j < i; ++j) gap = std::min(gap, box.distance2(box.position(lhs[i]), lhs[j]));
    EXPECT_LE(gap, previous + 1e-12) << i;
    previous = gap;
  }
  // block_size_y (29 values) is covered across its range, not bunched.
  std::set<int> thirds;
  for (std::size_t c : lhs) thirds.insert(p.space.indices(c)[1] * 3 / 29);
  EXPECT_EQ(thirds.size(), 3u);

  TableEvaluator ev(p.objective, p.cost_s);
  EXPECT_EQ(bo::initial_sample_size(Context(p.space, ev, Budget{1000, std::nullopt}, 1), 20), 20u);
  EXPECT_EQ(bo::initial_sample_size(Context(p.space, ev, Budget{300, std::nullopt}, 1), 20), 15u);
  EXPECT_EQ(bo::initial_sample_size(Context(p.space, ev, Budget{40, std::nullopt}, 1), 20), bo::kMinInitial);
  EXPECT_EQ(bo::initial_sample_size(Context(p.space, ev, Budget{}, 1), 20), 20u);
  EXPECT_EQ(bo::initial_sample_size(Context(p.space, ev, Budget{}, 1), 3), 3u);
  // A time limit counts in evaluations of the mean cost so far: 60 evaluations' worth here.
  Context timed(p.space, ev, Budget{std::nullopt, 60 * p.cost_s[7]}, 1);
  timed.evaluate(7);
  EXPECT_EQ(bo::initial_sample_size(timed, 20), bo::kMinInitial);
  // With a 40-evaluation budget the model takes over after kMinInitial samples: the first
  // evaluations after them are the model's, so the run is not the first 40 of a longer one.
  const auto short_run = replay("bayes_opt", p, Budget{40, std::nullopt}, 8);
  const auto long_run = replay("bayes_opt", p, Budget{400, std::nullopt}, 8);
  ASSERT_EQ(short_run.visits.size(), 40u);
  EXPECT_NE(short_run.visits, std::vector<std::size_t>(long_run.visits.begin(), long_run.visits.begin() + 40));
  EXPECT_EQ(std::vector<std::size_t>(short_run.visits.begin(), short_run.visits.begin() + bo::kMinInitial),
            std::vector<std::size_t>(long_run.visits.begin(), long_run.visits.begin() + bo::kMinInitial));
}

// The figures behind the report: mean best / optimum over 20 seeds with budgets of 100, 200 and
// 400 evaluations (separate runs: bayes_opt sizes its initial sample by the budget).
// Run with --gtest_also_run_disabled_tests --gtest_filter='GlobalFigures*'.
TEST(GlobalFigures, DISABLED_MeanBestOverOptimum) {
  for (const char* kernel : {"convolution_milo", "dedispersion_milo"})
    for (const char* gpu : {"A100", "A4000", "MI250X"}) {
      const Problem& p = problem(kernel, gpu);
      std::printf("%s/%s (optimum %.6g)\n", kernel, gpu, p.optimum);
      for (const char* s : {"random_sample", "diff_evo", "pso", "firefly_algorithm", "dual_annealing", "bayes_opt"}) {
        std::printf("  %-18s", s);
        const std::clock_t cpu = std::clock();
        for (std::size_t n : {100, 200, 400}) {
          double sum = 0;
          for (int seed = 1; seed <= 20; ++seed)
            sum += best_of(p, replay(s, p, Budget{n, std::nullopt}, 700 + seed), n) / p.optimum / 20;
          EXPECT_GE(sum, 1.0);
          std::printf(" %8.4f", sum);
        }
        std::printf("   (%.2f s CPU)\n", static_cast<double>(std::clock() - cpu) / CLOCKS_PER_SEC);
      }
    }
}

// Test support for the strategy tests: real measured spaces (the benchmark_hub caches of data/, loaded once
// per test binary) replayed through a Context with Kernel Tuner's simulated clock, recording which
// configurations a strategy evaluated and when. Included by the *_test.cpp files of this folder only.
#pragma once
#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "common/test_data.h"
#include "interop/interop.h"
#include "interop/recorded.h"
#include "search/search.h"
#include "spec/spec.h"

namespace tune::search::testing {

// A measured space: every valid configuration's objective and replay cost.
struct Problem {
  space::Space space;
  std::vector<std::optional<double>> objective;
  std::vector<double> cost_s;
  double optimum = 0;
};

inline Problem load_file(const std::filesystem::path& spec_file, const std::filesystem::path& cache_file) {
  Problem p{space::Space::build(spec::load(spec_file)), {}, {}, 0};
  const auto cache = interop::read_cache(cache_file);
  const auto rec = interop::recorded_results(cache, p.space);
  EXPECT_EQ(rec.missing, 0u);
  p.objective = rec.objective;
  for (double ms : rec.cost_ms) p.cost_s.push_back(ms / 1000);
  p.optimum = *rec.objective.at(rec.best.value());
  return p;
}

// A benchmark_hub kernel measured on a GPU (data/benchmark_hub/KERNEL/GPU.json.gz).
inline Problem load(const std::string& kernel, const std::string& gpu) {
  return load_file(test_data::file("benchmark_hub/" + kernel + ".json"),
                   test_data::file("benchmark_hub/" + kernel + "/" + gpu + ".json.gz"));
}

// Each cache is read once per test binary.
inline const Problem& problem(const std::string& kernel, const std::string& gpu = "A100") {
  static std::map<std::string, Problem> loaded;
  const std::string key = kernel + "/" + gpu;
  auto it = loaded.find(key);
  if (it == loaded.end()) it = loaded.emplace(key, load(kernel, gpu)).first;
  return it->second;
}
inline const Problem& convolution() { return problem("convolution_milo"); }
inline const Problem& dedispersion() { return problem("dedispersion_milo"); }

// A TableEvaluator that records what was evaluated and when each evaluation began.
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
  double best = Context::kFailed;  // best objective found
  std::size_t evaluations = 0;
};

inline Outcome replay(const std::string& strategy, const Problem& p, Budget budget, std::uint64_t seed,
                      StrategyOptions options = {}, std::vector<std::size_t> starts = {}) {
  Recording ev(p);
  Context ctx(p.space, ev, budget, seed, std::move(options), std::move(starts));
  Outcome o;
  o.evaluations = run(strategy, ctx);
  o.visits = ev.visits;
  o.began_s = ev.began_s;
  o.elapsed_s = ev.elapsed_s();
  o.best = ctx.best_objective();
  return o;
}

// The mean over `seeds` runs (seeds first_seed + 1 ...) of the best objective within `fevals`.
inline double mean_best(const std::string& strategy, const Problem& p, std::size_t fevals, int seeds,
                        std::uint64_t first_seed) {
  double sum = 0;
  for (int s = 1; s <= seeds; ++s)
    sum += replay(strategy, p, Budget{fevals, std::nullopt}, first_seed + static_cast<std::uint64_t>(s)).best;
  return sum / seeds;
}

}  // namespace tune::search::testing

// tune evaluate: how good is a search strategy, by the methodology of Willemsen et al., FGCS 2024
// (the arithmetic and every deviation from the reference implementation are in methodology.h).
//
// Inputs: T1 specs and brute-forced Kernel Tuner caches of them (every valid configuration
// recorded, such as data/benchmark_hub). Each cache is paired with the first spec whose
// parameters (names and values) it has, and must cover every valid configuration of that spec.
// Per cache, the statistics of the recorded space give the calculated random-search baseline, the
// time range and the time budget. Each strategy then runs `repeats` times per cache, repeat r
// with seed base seed + r, on a search::Context over the spec's space with a
// search::TableEvaluator of the recorded objectives and times (Kernel Tuner's simulated clock: a
// first visit costs compile + verification + benchmark time, a revisit nothing) and a time limit
// of the budget. Its best-so-far curves give the score: 0 = no better than random search,
// 1 = the optimum at once, below 0 = worse than random search.
//
// Nothing is stored. Repeats run on std::thread::hardware_concurrency() threads (or
// Options::threads); each repeat depends only on its seed, so the results do not depend on the
// number of threads. A strategy that throws (one not built yet, say) becomes an error cell of the
// table instead of ending the evaluation; an InputError (a bad --strategy-option value) ends it.
#pragma once
#include <cstdint>
#include <filesystem>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>
#include "decision/objective.h"

#include <nlohmann/json.hpp>

#include "evaluate/methodology.h"
#include "search/search.h"
#include "space/space.h"

namespace tune::evaluate {

// One brute-forced cache laid over its spec's space.
struct Problem {
  std::string label;  // e.g. convolution_milo/A100: the cache's folder and file name, no extension
  std::filesystem::path cache, spec;
  std::string device;                            // the cache's device_name ("" when it names none)
  std::shared_ptr<const space::Space> space;     // shared by the caches of one spec
  std::vector<std::optional<double>> objective;  // per valid configuration; nullopt = failed
  std::vector<double> cost_s;                    // compile + verification + benchmark time
};

// Loads each spec once and pairs every cache with the first spec whose parameters it has.
// Throws InputError naming the file: missing or unreadable, a cache whose parameters match none
// of the specs, a cache that lacks valid configurations of its spec, no successful configuration.
// `objective`: what the strategies minimise (the caches' time, nvml_energy or their product; a cache
// without nvml_energy is refused for energy and EDP).
std::vector<Problem> load_problems(const std::vector<std::string>& specs, const std::vector<std::string>& caches,
                                   decision::Objective objective = decision::Objective::time);

// The cache's short name: "<folder>/<file name without .gz and .json>".
std::string short_name(const std::filesystem::path& cache);

struct StrategySpec {
  std::string name;  // a registered strategy (search::strategies()), or a label for body
  search::StrategyOptions options{};
  std::function<void(search::Context&)> body{};  // empty: the registered strategy `name`
};

// --strategy values: names, comma lists, "all" (every registered strategy); each --strategy-option
// key=value goes to every listed strategy that reads that key. Throws InputError for an unknown
// strategy, a malformed option, or an option key none of the strategies reads.
std::vector<StrategySpec> strategy_specs(const std::vector<std::string>& names,
                                         const std::vector<std::string>& option_items);

struct Options {
  std::size_t repeats = 50;
  std::uint64_t seed = 1;  // repeat r runs with seed + r
  Settings settings{};
  unsigned threads = 0;  // 0: std::thread::hardware_concurrency()
  // Bootstrap resamples of the repeats per cell (for the confidence intervals and the stability of
  // a choice, select.h); 0: none.
  std::size_t resamples = 200;
};

struct Cell {
  std::optional<Curve> curve;  // absent when the strategy failed on this cache
  std::string error;           // why it failed (the first failing repeat's message)
  double mean_fevals = 0;      // evaluations per repeat, on average
  // The score of Options::resamples bootstrap resamples of the repeats (drawn with replacement,
  // as many as there are repeats; resample b of every cell comes from its own seeded stream).
  std::vector<double> resampled;
};

struct Result {
  std::vector<std::string> problems;     // labels, in input order
  std::vector<SpaceStats> stats;         // per problem
  std::vector<Window> windows;           // per problem
  std::vector<std::string> strategies;   // names, in input order
  std::vector<std::vector<Cell>> cells;  // [strategy][problem]
  Options options{};
  double seconds = 0;  // wall time of the runs

  // Mean of the strategy's per-cache scores; nullopt when a cell failed or has no score.
  std::optional<double> mean(std::size_t strategy) const;
};

Result evaluate(const std::vector<Problem>& problems, const std::vector<StrategySpec>& strategies,
                const Options& options);

// evaluate() in parts, for the ranks of an MPI run (tuner/mpi), which hand out one cell each: the
// Result's statistics, windows and names with its cells empty; then one cell (strategy `strat` on
// problem `prob`), its repeats on Options::threads threads. Equal to evaluate()'s cell.
Result frame(const std::vector<Problem>& problems, const std::vector<StrategySpec>& strategies, const Options& options);
Cell evaluate_cell(const Result& frame, const std::vector<Problem>& problems,
                   const std::vector<StrategySpec>& strategies, std::size_t strat, std::size_t prob);

// Statistics and budget per cache, then rows = strategies, columns = caches and the mean.
std::string format_table(const Result& r);
nlohmann::ordered_json to_json(const Result& r);
// Long format: cache,strategy,time_s,random,strategy_best,score (one row per time point).
std::string curves_csv(const Result& r);

}  // namespace tune::evaluate

// What a `tune run` is asked to do (Options) and what validate() settles before anything runs
// (Prepared: the spec, its Tune object and policy with the command line's overrides, the space,
// the strategy, the captures); the run record's fields and the search policy that follow from
// them. tuner.h runs it.
#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>
#include "decision/objective.h"

#include "capture/capture.h"
#include "compile/processes.h"
#include "search/search.h"
#include "sizes/sizes.h"
#include "space/space.h"
#include "spec/extension.h"
#include "spec/spec.h"
#include "store/store.h"

namespace tune::tuning {

// A size split over MPI ranks (tuner/mpi, when a GPU model has more ranks than sizes): each rank
// runs one part of the search, then one rank decides from what they all measured.
enum class Part {
  whole,   // search and decide: a run on its own
  search,  // share `index` of `count`: brute force the configurations c with c % count == index; a
           // strategy its own seed (share_seed) and that share of --max-fevals (share_of); no decision
  decide,  // nothing measured but the decision's contenders: each size decided from what is stored
};
struct Share {
  Part part = Part::whole;
  std::size_t index = 0, count = 1;
};

// Share `index` of `total` evaluations split `count` ways: the shares differ by at most one and
// sum to `total`.
std::size_t share_of(std::size_t total, std::size_t index, std::size_t count);
// Share `index`'s search seed: the run's seed for share 0, distinct ones for the others.
std::uint64_t share_seed(std::uint64_t seed, std::size_t index);

struct Options {
  std::string space;  // T1 file
  std::vector<sizes::Size> sizes;
  std::string sizes_text;
  std::string db = "results/tuning.db";
  std::string strategy = "brute_force";      // "": the spec's Search.Name, else the default (strategy_for)
  search::StrategyOptions strategy_options;  // --strategy-option key=value (validated by validate())
  std::optional<std::int64_t> max_fevals;
  std::optional<double> time_limit_s;
  // The search's random seed. `tune run` draws a fresh one when --seed is not given (seed_drawn),
  // so that repeated runs are independent samples of a stochastic strategy, as Kernel Tuner's
  // are; the seed is printed and stored with the run, and --seed repeats the search exactly.
  std::uint64_t seed = 1;
  bool seed_drawn = false;
  // The input data's seed: --seed when given, else 1, so every run times the same inputs.
  std::uint64_t data_seed = 1;
  int device = 0;
  unsigned compile_threads = 0;  // NVRTC compiles at once (--compile-threads); 0: one per core
  // GPU runs: compile in processes of this program (the tune command: itself), NVRTC's compiles
  // of one process not running in parallel (compile/processes.h); none: on threads of this one.
  std::optional<compile::ServerProgram> compile_server;
  // Overrides of the measurement and decision policy (decision/policy.h), "key=value" in order,
  // applied over the spec's Tune.policy: --policy, and --repetitions (min_samples), --warmup
  // (warmup), --flush-l2 (flush_l2) where given.
  std::vector<std::string> policy;
  // --objective: time (the default), energy per launch or the energy-delay product. Energy and EDP
  // measure energy too (run/energy.h, NVML; refused without it), rank replays by the caches'
  // nvml_energy, and add the time-energy tradeoff to the end of the run.
  decision::Objective objective = decision::Objective::time;
  bool json = false;
  bool wide = false;  // the end-of-run table with each configuration inline (query/labels.h)
  std::string command_line;
  std::vector<std::string> replay;  // Kernel Tuner caches to replay instead of a GPU run
  // A replay simulating this many GPUs evaluating at once: the strategy proposes batches
  // (search/lanes.h). A GPU run evaluates in parallel over MPI ranks instead.
  std::size_t parallel = 1;
  Share share;  // --share I/K, --decide-only: a part of a size split over MPI ranks
  // Capture files (tuning/capture_args.h): the sizes, inputs and reference outputs of the
  // application's own launches, in place of --sizes, the fills and Tune.reference.
  std::vector<std::string> capture;
  // Replay of several sizes: each size's search starts from the best configurations found at the
  // nearest sizes already searched (--no-seed-sizes turns it off).
  bool seed_sizes = true;
  // This process's arguments (argv[0] first): a supervised worker process re-runs them when a
  // configuration faults the GPU context (see run/isolate.h).
  std::vector<std::string> argv;
};

// The default strategy, chosen by leaving one cache out at a time over every brute-forced cache at
// hand (bench/bench_default.sh, tuner/evaluate/select.h; docs/performance.md): the only strategy
// above random search on every cache, and the best mean.
inline constexpr std::string_view kDefaultStrategy = "bayes_opt";

// The strategy a run uses: --strategy when given (opts.strategy not empty), else the spec's
// Search.Name when it is one of ours (Kernel Tuner's rule), else kDefaultStrategy (with a warning
// when Search.Name names another).
std::string strategy_for(const Options& opts, const spec::Spec& spec);

// The run record's fields that come from the command: spec, kernel, command line, strategy, budget.
store::RunInfo run_info(const Options& opts, const spec::Spec& spec);

// The spec, its constructed space, its Tune object and the strategy (strategy_for), settled once
// by validate() for the run that follows.
struct Prepared {
  spec::Spec spec;
  space::Space space;
  spec::Extension extension;  // Tune, its policy with Options::policy applied
  std::string strategy;
  std::vector<capture::Capture> captures;  // Options::capture, read and checked against the spec
};

// The search policy of a run (size_search.h): strategy, options, budget per size, seed, seeding.
struct SearchPolicy;
SearchPolicy search_policy(const Options& opts);

// Applies `overrides` (Options::policy, "key=value" each) to `policy` and checks the result; throws
// InputError naming the option, the key and the cause.
void apply_policy(const std::vector<std::string>& overrides, decision::Policy& policy);

// Validates everything that needs no GPU (spec, its Tune object and policy with the command line's
// overrides, kernel file, space, sizes, database) and throws InputError on the first problem,
// before anything is written.
Prepared validate(const Options& opts);

// A fresh search seed (std::random_device); in a worker process of a supervised run, the seed its
// supervisor drew (so every generation of one run searches alike), passed in this variable.
inline constexpr const char* kDrawnSeedVariable = "TUNE_DRAWN_SEED";
std::uint64_t draw_seed();

}  // namespace tune::tuning

// `tune --space SPEC --replay CACHE... --strategy S`: the search without a GPU, on recorded
// measurements. Any strategy of search::strategies() runs against an Evaluator that looks each
// configuration up in a Kernel Tuner cache (interop::recorded_results), with Kernel Tuner's
// simulated clock; every evaluation is stored like a real one, marked as replayed.
//
// Across sizes: the caches are grouped by (kernel, device) and each group is searched through one
// SizeSearch (size_search.h), the GPU sweep's search path: in order of problem size, each size
// starting (unless Options::seed_sizes is off) from the best configurations found at the nearest
// sizes already searched, seeded with the seed plus the size's position.
#pragma once
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "space/space.h"
#include "store/store.h"
#include "tuning/options.h"

namespace tune::tuning {

// One problem size's search on a recorded cache.
struct SizeReplay {
  std::string cache;  // the replayed file
  std::string kernel, device;
  sizes::Size size;
  std::int64_t run_id = 0;
  std::vector<std::size_t> starts;                // the Context's starts (neighbours' best)
  std::vector<std::string> seeded_from;           // the sizes they came from
  std::vector<std::size_t> evaluated;             // configurations, in evaluation order
  std::vector<std::optional<double>> objectives;  // their objectives (nullopt: failed)
  double simulated_ms = 0;                        // Kernel Tuner's simulated clock at the end
  std::optional<std::size_t> best;                // the best configuration found
  double best_objective = 0;
  std::optional<std::size_t> true_best;  // the cache's best over the whole space
  double true_best_objective = 0;
  // Wall times from the search's start: until the strategy ended (strategy + replay + handing
  // each evaluation to the writer thread), of which the strategy's own (between evaluations), and
  // until every evaluation was stored and committed.
  double search_s = 0, strategy_s = 0, stored_s = 0;
  // CPU time of the search's thread until the strategy ended, and of the writer's thread.
  double search_cpu_s = 0, writer_cpu_s = 0;

  // Evaluations until the best found was within `tolerance` (0.02: 2%) of the true best.
  std::optional<std::size_t> evaluations_to(double tolerance) const;
};

// Replays every cache (those whose problem size is among --sizes, when given; none of them is an
// InputError, before the database is opened) and returns one SizeReplay per cache replayed, in the
// order searched. A cache whose same replay is stored already (same bytes, space, strategy,
// options, budget and given seed) is left out: a replay again stores nothing new. Throws InputError when a cache belongs to another
// space or a valid configuration the strategy visits is missing from its cache (the replay
// stops; what was committed stays, that size's run is marked failed).
// `on_size` is called after each size.
std::vector<SizeReplay> replay(const Options& opts, const Prepared& prepared,
                               const std::function<void(const SizeReplay&)>& on_size = {});

// The caches of each (kernel, device) group, in the order replay() searches them: a replay of one
// group's caches alone searches them as the whole replay does (the ranks of an MPI run replay one
// group each).
std::vector<std::vector<std::string>> replay_groups(const Options& opts, const spec::Spec& spec);

// run_replay's output in its parts: the opening lines (with the policy a GPU run of the same spec
// and options would measure and decide by), one line per size, the --json document.
// `caches`: how many are replayed (0: not known).
void print_replay_opening(const Options& opts, const decision::Policy& policy, std::size_t caches = 0);
void print_replay_size(const Options& opts, const space::Space& space, const SizeReplay& r);
// `unchanged`: the caches left out because the same replay of them is stored already.
void print_replay_json(const Options& opts, const space::Space& space, const std::vector<SizeReplay>& all,
                       const std::vector<std::string>& unchanged = {});

// The closing line: what was replayed and stored, of `caches`, and how many were `unchanged`.
void print_replay_summary(const Options& opts, const std::vector<SizeReplay>& all, std::size_t caches,
                          std::size_t unchanged = 0);

// A SizeReplay as JSON and back, every field exact (the ranks of an MPI run send them to rank 0).
nlohmann::json to_json(const SizeReplay& r);
SizeReplay size_replay_from_json(const nlohmann::json& j);

// The above, printing one line per size (or, with --json, one JSON document). Returns 0.
int run_replay(const Options& opts, const Prepared& prepared);
// validate(opts), then the above.
int run_replay(const Options& opts);

}  // namespace tune::tuning

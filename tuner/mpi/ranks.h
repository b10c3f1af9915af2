// The commands that run on the ranks of `mpirun -n K tune ...` (K > 1). Rank 0 reads the inputs,
// hands out the work item by item (farm.h) and is the only writer of the database: each rank
// measures or replays into a scratch database of its own, which rank 0 merges (store/merge.h) as
// each item comes back, so everything a finished item measured is committed before the next, and
// a re-run of the same command resumes.
//
//   GPU sweep: an item is one problem size on one GPU model. Each rank runs it as a supervised
//     worker process (run/isolate.h) on its node-local GPU (local rank modulo the node's device
//     count), so a configuration that faults the GPU costs that process only. Brute force first
//     measures one size per GPU model alone, which compiles every configuration once; the cubins
//     then travel from rank 0's binary cache to each rank with its next item. A rank whose item
//     fails is retired and the item goes to another rank of its model. Where a model has fewer
//     sizes left than ranks, each size is split into shares, one per rank it can have: brute
//     force gives share i of K every K-th configuration from the i-th, a strategy runs K searches
//     with seeds apart and a K-th of the budget each (the budget counts every evaluation of every
//     rank); once every share is in, one rank decides the size from all their measurements (its
//     contenders measured again on its GPU, as on one process) and measures its ceilings.
//   Replay: an item is one (kernel, device) group of caches, searched as a one-rank replay
//     searches it, so the results equal one rank's for the same seed.
//   Evaluate: an item is one (strategy, cache) cell; the scores equal one rank's.
#pragma once
#include <optional>
#include <vector>

#include "evaluate/evaluate.h"
#include "mpi/world.h"
#include "tuning/options.h"

namespace tune::mpi {

// `tune run` (a GPU sweep, or a replay with --replay) on the ranks. Returns the exit code; on rank
// 0 an error is thrown as on one process, the other ranks return its exit code silently.
int run(const World& world, tuning::Options opts);

// `tune evaluate` on the ranks: the Result on rank 0, nothing on the others.
std::optional<evaluate::Result> evaluate(const World& world, const std::vector<evaluate::Problem>& problems,
                                         const std::vector<evaluate::StrategySpec>& strategies,
                                         const evaluate::Options& options);

}  // namespace tune::mpi

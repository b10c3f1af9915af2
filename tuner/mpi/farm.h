// A farm of work items over the ranks: rank 0 hands out one item at a time to whichever rank is
// free (itself included, on a thread of its own), so a slow rank delays nobody, and receives each
// result on the calling thread, the only one that writes the database.
//
// Every rank calls this the same number of times: rank 0 farm(), the others serve(); each call
// ends with rank 0 telling every rank to stop. An item may be bound to a group of ranks (the ranks
// with one GPU model): it goes only to a rank of its group.
#pragma once
#include <cstddef>
#include <functional>
#include <string>
#include <vector>

#include "mpi/world.h"

namespace tune::mpi {

using PayloadFn = std::function<std::string(std::size_t item, int rank)>;            // on rank 0's thread
using WorkFn = std::function<std::string(const std::string& payload)>;               // on every rank
using DoneFn = std::function<void(std::size_t item, int rank, std::string result)>;  // rank 0's thread

struct FarmPlan {
  std::size_t items = 0;
  std::vector<int> item_group;  // per item; empty: every rank takes every item
  std::vector<int> rank_group;  // per rank, when item_group is given
};

struct FarmStats {
  std::vector<std::size_t> items;  // per rank
  std::vector<double> busy_s;      // per rank: from handing out to receiving back, summed
  double wall_s = 0;
  std::vector<std::string> faults;  // "rank r: why", one per retired rank
};

// Rank 0. Items go out in index order. When an item's work throws an Error on a rank, that rank is
// retired (it gets no more items) and the item goes back to the queue for another rank of its
// group; when no rank of the group is left, or the work threw an InputError (the input's fault, so
// any rank would fail alike), no further item is handed out, the ones in progress are awaited
// (their results still reach `done`), and the first such error is thrown here, naming the rank.
//
// Ranks beat every second while they wait or work, and so does rank 0. A rank not heard from for
// TUNE_MPI_SILENCE seconds (default 30) is lost (World::lose): it gets no more work in this job,
// and its item goes back to the queue like a failed one. That needs a launcher that lets the job
// go on when a rank dies (Open MPI: --mca orte_enable_recovery 1); by default mpirun ends every
// rank, and the same command resumes from what rank 0 committed. A rank that has not heard rank 0
// for twice that long ends (exit 3), and its worker process with it.
FarmStats farm(const World& world, const FarmPlan& plan, const PayloadFn& payload, const WorkFn& work,
               const DoneFn& done);

// Ranks other than 0: runs items (on a thread, beating meanwhile) until rank 0 says stop.
void serve(const World& world, const WorkFn& work);

}  // namespace tune::mpi

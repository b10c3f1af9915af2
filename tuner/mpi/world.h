// The MPI world of a `mpirun -n K tune ...` (or srun) process: initialised once in main() when the
// launcher's environment says this process is one of its ranks, finalised on exit (RAII). A plain
// `tune`, and every worker process a rank starts, never touches MPI.
//
// Only the thread that made the World calls MPI (MPI_THREAD_FUNNELED): rank 0's own work runs on
// another thread and talks to it through the farm (farm.h), not through MPI.
#pragma once
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace tune::mpi {

// True when a launcher started this process as an MPI rank (Open MPI's OMPI_COMM_WORLD_SIZE,
// PMIx's PMIX_RANK, Slurm's PMI_SIZE), and it is not a supervised worker process of a rank.
bool launched();

struct Message {
  int source = 0;
  int tag = 0;
  std::string bytes;
  bool cut = false;  // it began but did not arrive in time: its sender is gone (bytes incomplete)
};

class World {
 public:
  World(int* argc, char*** argv);
  ~World();
  World(const World&) = delete;
  World& operator=(const World&) = delete;

  int rank() const { return rank_; }
  int size() const { return size_; }
  // This rank's place among the ranks of its node (0, 1, ...): its GPU is local_rank modulo the
  // node's device count.
  int local_rank() const { return local_rank_; }

  void send(int to, int tag, std::string_view bytes) const;
  // send(), but gives up after `seconds` when `to` does not take the message (a rank that died
  // without a word takes nothing, and a large message waits for its receiver): false then.
  bool send_within(int to, int tag, std::string bytes, double seconds) const;
  // A message when one is waiting, else nothing. One that began to arrive but is not whole within
  // `patience` seconds comes back `cut` (a sender that died mid-message never finishes it).
  std::optional<Message> poll(double patience) const;
  // Rank 0's bytes, on every rank.
  std::string broadcast(std::string bytes) const;
  // Every rank's bytes, in rank order, on rank 0 (empty elsewhere).
  std::vector<std::string> gather(const std::string& bytes) const;
  // Ends every rank of the job with `code` (a rank that cannot go on and cannot tell the others).
  [[noreturn]] void abort(int code) const;

  // Ranks found dead (the farm's heartbeats, farm.h): they get no more work in this job. Only
  // possible where the launcher lets the job go on without them (Open MPI:
  // --mca orte_enable_recovery 1); otherwise the launcher ends every rank.
  // A job that lost a rank cannot finalise MPI (its collective end waits for the dead): every
  // rank then ends without MPI_Finalize. Rank 0 knows of its losses; it tells the others (forgo).
  void lose(int rank) const;
  bool lost(int rank) const;
  bool any_lost() const;
  void forgo_finalize() const { forgo_ = true; }

 private:
  int rank_ = 0, size_ = 1, local_rank_ = 0;
  mutable std::vector<bool> lost_;
  mutable bool forgo_ = false;
  mutable std::vector<std::unique_ptr<std::string>>
      abandoned_;  // buffers of sends given up on: MPI may still read them
};

// The process's World while one exists, else nullptr.
World* world();

}  // namespace tune::mpi

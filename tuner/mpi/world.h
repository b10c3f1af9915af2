// The MPI world of a `mpirun -n K tune ...` (or srun) process: initialised once in main() when the
// launcher's environment says this process is one of its ranks, finalised on exit (RAII). A plain
// `tune`, and every worker process a rank starts, never touches MPI.
//
// Only the thread that made the World calls MPI (MPI_THREAD_FUNNELED): rank 0's own work runs on
// another thread and talks to it through the farm (farm.h), not through MPI.
#pragma once
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
  Message receive() const;              // the next message from any rank (blocks)
  std::optional<Message> poll() const;  // a message when one is waiting, else nothing
  // Rank 0's bytes, on every rank.
  std::string broadcast(std::string bytes) const;
  // Every rank's bytes, in rank order, on rank 0 (empty elsewhere).
  std::vector<std::string> gather(const std::string& bytes) const;
  // Ends every rank of the job with `code` (a rank that cannot go on and cannot tell the others).
  [[noreturn]] void abort(int code) const;

 private:
  int rank_ = 0, size_ = 1, local_rank_ = 0;
};

// The process's World while one exists, else nullptr.
World* world();

}  // namespace tune::mpi

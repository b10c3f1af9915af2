// tune::mpi::World over MPI's C API.
#include "mpi/world.h"

// The C API only: no C++ bindings (and no libmpi_cxx) in the link.
#define OMPI_SKIP_MPICXX 1
#define MPICH_SKIP_MPICXX 1
#include <mpi.h>

#include <cstdlib>
#include <limits>
#include <vector>

#include "common/error.h"
#include "run/isolate.h"

namespace tune::mpi {

namespace {

World* g_world = nullptr;

void check(int rc, const char* what) {
  if (rc == MPI_SUCCESS) return;
  char text[MPI_MAX_ERROR_STRING] = {};
  int len = 0;
  MPI_Error_string(rc, text, &len);
  throw Error(std::string("mpi: ") + what + " failed: " + text);
}

int count_of(std::size_t n) {
  if (n > static_cast<std::size_t>(std::numeric_limits<int>::max()))
    throw Error("mpi: a message of " + std::to_string(n) + " bytes is over MPI's 2 GiB limit");
  return static_cast<int>(n);
}

}  // namespace

bool launched() {
  if (run::worker_generation() >= 0) return false;
  for (const char* v : {"OMPI_COMM_WORLD_SIZE", "PMIX_RANK", "PMI_SIZE"})
    if (std::getenv(v) != nullptr) return true;
  return false;
}

World::World(int* argc, char*** argv) {
  int provided = 0;
  check(MPI_Init_thread(argc, argv, MPI_THREAD_FUNNELED, &provided), "MPI_Init_thread");
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  check(MPI_Comm_rank(MPI_COMM_WORLD, &rank_), "MPI_Comm_rank");
  check(MPI_Comm_size(MPI_COMM_WORLD, &size_), "MPI_Comm_size");
  MPI_Comm node;
  check(MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, rank_, MPI_INFO_NULL, &node), "split by node");
  MPI_Comm_rank(node, &local_rank_);
  MPI_Comm_free(&node);
  g_world = this;
}

World::~World() {
  g_world = nullptr;
  MPI_Finalize();
}

void World::send(int to, int tag, std::string_view bytes) const {
  check(MPI_Send(bytes.data(), count_of(bytes.size()), MPI_BYTE, to, tag, MPI_COMM_WORLD), "MPI_Send");
}

Message World::receive() const {
  MPI_Status st;
  check(MPI_Probe(MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &st), "MPI_Probe");
  int n = 0;
  MPI_Get_count(&st, MPI_BYTE, &n);
  Message m{st.MPI_SOURCE, st.MPI_TAG, std::string(static_cast<std::size_t>(n), '\0')};
  check(MPI_Recv(m.bytes.data(), n, MPI_BYTE, st.MPI_SOURCE, st.MPI_TAG, MPI_COMM_WORLD, MPI_STATUS_IGNORE),
        "MPI_Recv");
  return m;
}

std::optional<Message> World::poll() const {
  int flag = 0;
  MPI_Status st;
  check(MPI_Iprobe(MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &flag, &st), "MPI_Iprobe");
  if (!flag) return std::nullopt;
  return receive();
}

std::string World::broadcast(std::string bytes) const {
  std::uint64_t n = bytes.size();
  check(MPI_Bcast(&n, 1, MPI_UINT64_T, 0, MPI_COMM_WORLD), "MPI_Bcast");
  bytes.resize(n);
  check(MPI_Bcast(bytes.data(), count_of(n), MPI_BYTE, 0, MPI_COMM_WORLD), "MPI_Bcast");
  return bytes;
}

std::vector<std::string> World::gather(const std::string& bytes) const {
  const int n = count_of(bytes.size());
  std::vector<int> counts(static_cast<std::size_t>(size_)), offsets(static_cast<std::size_t>(size_));
  check(MPI_Gather(&n, 1, MPI_INT, counts.data(), 1, MPI_INT, 0, MPI_COMM_WORLD), "MPI_Gather");
  std::string all;
  if (rank_ == 0) {
    std::size_t total = 0;
    for (int r = 0; r < size_; ++r) offsets[r] = count_of(total), total += static_cast<std::size_t>(counts[r]);
    all.resize(total);
  }
  check(MPI_Gatherv(bytes.data(), n, MPI_BYTE, all.data(), counts.data(), offsets.data(), MPI_BYTE, 0, MPI_COMM_WORLD),
        "MPI_Gatherv");
  std::vector<std::string> out;
  if (rank_ == 0)
    for (int r = 0; r < size_; ++r) out.push_back(all.substr(static_cast<std::size_t>(offsets[r]), counts[r]));
  return out;
}

void World::abort(int code) const {
  MPI_Abort(MPI_COMM_WORLD, code);
  std::_Exit(code);
}

World* world() { return g_world; }

}  // namespace tune::mpi

// tune::mpi::World over MPI's C API.
#include "mpi/world.h"

// The C API only: no C++ bindings (and no libmpi_cxx) in the link.
#define OMPI_SKIP_MPICXX 1
#define MPICH_SKIP_MPICXX 1
#include <mpi.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <limits>
#include <memory>
#include <thread>
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
  lost_.assign(static_cast<std::size_t>(size_), false);
  g_world = this;
}

World::~World() {
  g_world = nullptr;
  if (!forgo_ && !any_lost()) MPI_Finalize();
}

void World::send(int to, int tag, std::string_view bytes) const {
  check(MPI_Send(bytes.data(), count_of(bytes.size()), MPI_BYTE, to, tag, MPI_COMM_WORLD), "MPI_Send");
}

bool World::send_within(int to, int tag, std::string bytes, double seconds) const {
  auto buffer = std::make_unique<std::string>(std::move(bytes));  // stays where it is while MPI may read it
  MPI_Request request = MPI_REQUEST_NULL;
  check(MPI_Isend(buffer->data(), count_of(buffer->size()), MPI_BYTE, to, tag, MPI_COMM_WORLD, &request), "MPI_Isend");
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::duration<double>(seconds);
  for (;;) {
    int done = 0;
    check(MPI_Test(&request, &done, MPI_STATUS_IGNORE), "MPI_Test");
    if (done) return true;
    if (std::chrono::steady_clock::now() > deadline) break;
    std::this_thread::sleep_for(std::chrono::microseconds(200));
  }
  MPI_Request_free(&request);  // the send may still complete; its buffer stays until the end
  abandoned_.push_back(std::move(buffer));
  return false;
}

void World::lose(int rank) const { lost_.at(static_cast<std::size_t>(rank)) = true; }
bool World::lost(int rank) const { return lost_.at(static_cast<std::size_t>(rank)); }
bool World::any_lost() const { return std::find(lost_.begin(), lost_.end(), true) != lost_.end(); }

std::optional<Message> World::poll(double patience) const {
  int flag = 0;
  MPI_Message handle = MPI_MESSAGE_NULL;
  MPI_Status st;
  check(MPI_Improbe(MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &flag, &handle, &st), "MPI_Improbe");
  if (!flag) return std::nullopt;
  int n = 0;
  MPI_Get_count(&st, MPI_BYTE, &n);
  auto buffer = std::make_unique<std::string>(static_cast<std::size_t>(n), '\0');
  MPI_Request request = MPI_REQUEST_NULL;
  check(MPI_Imrecv(buffer->data(), n, MPI_BYTE, &handle, &request), "MPI_Imrecv");
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::duration<double>(patience);
  for (;;) {
    int done = 0;
    check(MPI_Test(&request, &done, MPI_STATUS_IGNORE), "MPI_Test");
    if (done) return Message{st.MPI_SOURCE, st.MPI_TAG, std::move(*buffer)};
    if (std::chrono::steady_clock::now() > deadline) break;
    std::this_thread::sleep_for(std::chrono::microseconds(100));
  }
  MPI_Cancel(&request);
  MPI_Request_free(&request);
  abandoned_.push_back(std::move(buffer));
  return Message{st.MPI_SOURCE, st.MPI_TAG, {}, true};
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

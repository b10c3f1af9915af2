#include "common/launcher.h"

#include <cerrno>
#include <cstdlib>

#include "common/error.h"

namespace tune {

namespace {

std::optional<long> count_of(const char* text) {
  if (text == nullptr || *text == '\0') return std::nullopt;
  char* end = nullptr;
  errno = 0;
  const long v = std::strtol(text, &end, 10);
  if (errno != 0 || *end != '\0' || v < 0) return std::nullopt;
  return v;
}

}  // namespace

std::optional<LauncherRanks> launcher_ranks(const Environment& env) {
  auto from = [&](const char* name, long add = 0) -> std::optional<LauncherRanks> {
    if (auto v = count_of(env(name))) return LauncherRanks{*v + add, std::string(name) + "=" + env(name)};
    return std::nullopt;
  };
  std::optional<LauncherRanks> best;
  auto consider = [&](std::optional<LauncherRanks> r) {
    if (r && (!best || r->count > best->count)) best = std::move(r);
  };
  consider(from("OMPI_COMM_WORLD_SIZE"));
  consider(from("PMI_SIZE"));
  consider(from("MPI_LOCALNRANKS"));
  consider(from("PMIX_RANK", 1));
  if (env("SLURM_PROCID") != nullptr) {
    consider(from("SLURM_STEP_NUM_TASKS"));
    consider(from("SLURM_NTASKS"));
  }
  return best;
}

void check_launcher(int mpi_size, bool mpi_built, const Environment& env) {
  const auto l = launcher_ranks(env);
  if (!l || l->count <= 1 || mpi_size > 1) return;
  const std::string cause =
      mpi_built ? "this tune was built against a different MPI than the launcher's (its MPI_Init did not join the "
                  "other ranks): rebuild it against the launcher's MPI or start it with the mpirun of the MPI it "
                  "was built with"
                : "this tune was built without MPI: rebuild it with MPI (cmake finds MPI_C) to run on several ranks";
  throw InputError("the launcher started " + std::to_string(l->count) + " ranks (" + l->variable +
                   ") but MPI reports " + std::to_string(mpi_size) +
                   " rank: each would measure the whole job again into the same database; refusing before "
                   "measuring. Likely cause: " +
                   cause);
}

}  // namespace tune

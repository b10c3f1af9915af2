// How many ranks a launcher (mpirun, mpiexec, srun) started, from the environment it gives each
// rank. A process that a launcher counts as one of several ranks but that MPI sees alone (tune
// built against another MPI than the launcher's, or without MPI) would run the whole job again
// beside its copies, into the same database: the command refuses that before measuring.
#pragma once
#include <functional>
#include <optional>
#include <string>

namespace tune {

struct LauncherRanks {
  long count = 0;        // ranks the launcher started (at least this many)
  std::string variable;  // the variable that says so, e.g. "OMPI_COMM_WORLD_SIZE=2"
};

using Environment = std::function<const char*(const char*)>;

// The launcher's count of ranks: Open MPI (OMPI_COMM_WORLD_SIZE), PMI and MPICH/Hydra (PMI_SIZE,
// MPI_LOCALNRANKS), PMIx (PMIX_RANK: at least rank + 1) and Slurm inside a job step
// (SLURM_STEP_NUM_TASKS or SLURM_NTASKS, with SLURM_PROCID set: a batch script itself is no
// rank). Nothing when no launcher variable is set or none parses as a count.
std::optional<LauncherRanks> launcher_ranks(const Environment& env = [](const char* n) { return std::getenv(n); });

// Throws InputError (one line: the launcher's count, MPI's count and the likely cause) when the
// launcher says several ranks and MPI reports `mpi_size`, 1 (`mpi_built`: whether this tune has
// MPI at all).
void check_launcher(
    int mpi_size, bool mpi_built, const Environment& env = [](const char* n) { return std::getenv(n); });

}  // namespace tune

#include "cli/cli.h"

#ifdef TUNE_HAVE_MPI
#include <optional>

#include "mpi/world.h"
#endif

int main(int argc, char** argv) {
#ifdef TUNE_HAVE_MPI
  // One of the ranks of `mpirun -n K tune ...` (tuner/mpi): MPI lives as long as the command.
  std::optional<tune::mpi::World> world;
  if (tune::mpi::launched()) world.emplace(&argc, &argv);
#endif
  return tune::cli::main(argc, argv);
}


#include <cstdio>
#include <cstdlib>

#include "cli/cli.h"
#include "compile/pool.h"
#include "compile/processes.h"
#include "log/log.h"

#ifdef TUNE_HAVE_MPI
#include <optional>

#include "mpi/world.h"
#endif

int main(int argc, char** argv) {
  // A compile process that a GPU run started (compile/processes.h): nothing else of the command.
  if (tune::compile::serving()) return tune::compile::serve();
  int rc = 0;
  {
#ifdef TUNE_HAVE_MPI
    // One of the ranks of `mpirun -n K tune ...` (tuner/mpi): MPI lives as long as the command.
    std::optional<tune::mpi::World> world;
    if (tune::mpi::launched()) world.emplace(&argc, &argv);
#endif
    rc = tune::cli::main(argc, argv);
  }
  // Compiles a run gave up (compile/pool.h) may still be inside NVRTC on their threads: everything
  // of the command is closed (the database, the GPU, MPI), so end here without the static
  // destructors they could still be using.
  if (tune::compile::abandoned_running() > 0) {
    tune::log::flush();
    std::fflush(nullptr);
    std::_Exit(rc);
  }
  return rc;
}

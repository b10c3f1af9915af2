# The arguments and environment of the MPI scripts on the GPU machine (mpi_gpu_check.sh,
# mpi_split_check.sh, bench_mpi.sh). Source it with theirs:
#   source bench/mpi_args.sh OUT_DIR [TUNE_BINARY] [MPI_DIR]
# sets `out` and `tune` (absolute; default build/tune), Open MPI's environment from MPI_DIR
# (mpi_env.sh; default .gpu/mpi), CUDA's libraries, and makes OUT_DIR.
out=${1:?output folder}
tune=$(realpath "${2:-build/tune}")
source "$(dirname "${BASH_SOURCE[0]}")/../scripts/mpi_env.sh" "${3:-.gpu/mpi}"
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:$LD_LIBRARY_PATH
mkdir -p "$out"

# Source it: `source scripts/mpi_env.sh [DIR]` (default .gpu/mpi, made by scripts/mpi_bundle.sh).
# Open MPI and PMIx from DIR: mpirun on PATH, their libraries on LD_LIBRARY_PATH, their prefixes
# relocated, and the settings a single container needs (root allowed, shared memory without
# cross-memory attach, no InfiniBand or UCX probing). NCCL's NVLink multicast stays off, as the
# GPU machines ask, though tune uses MPI and not NCCL.
_mpi_dir=$(realpath -m "${1:-.gpu/mpi}")
export PATH="$_mpi_dir/usr/bin:$PATH"
export LD_LIBRARY_PATH="$_mpi_dir/usr/lib/x86_64-linux-gnu/openmpi/lib:$_mpi_dir/usr/lib/x86_64-linux-gnu${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
export OPAL_PREFIX="$_mpi_dir/usr"
export PMIX_INSTALL_PREFIX="$_mpi_dir/usr/lib/x86_64-linux-gnu/pmix2"
export PMIX_MCA_mca_base_component_path="$_mpi_dir/usr/lib/x86_64-linux-gnu/pmix2/lib/pmix"
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
export OMPI_MCA_btl=self,vader OMPI_MCA_pml=ob1 OMPI_MCA_btl_vader_single_copy_mechanism=none
export OMPI_MCA_rmaps_base_oversubscribe=1
# No binding: Open MPI binds a rank to one core by default (np <= 2) or one socket, and a rank's
# worker process compiles on every core it is allowed (mpirun --bind-to none does the same)
export OMPI_MCA_hwloc_base_binding_policy=none
# A rank that dies (SIGKILL, its node lost) leaves the job to the others instead of ending it:
# tune hands its work to the rest (tuner/mpi/farm.h)
export OMPI_MCA_orte_enable_recovery=1
export NCCL_NVLS_ENABLE=0
unset _mpi_dir

#!/usr/bin/env bash
# Debian 12's Open MPI as files, for the GPU machine, which has no MPI and no network:
#   bash scripts/mpi_bundle.sh [DIR]          (default .gpu/mpi; .gpu/ is ignored by git, and run's
#                                              `carry` takes it along)
# downloads the packages below with apt-get (no install) and unpacks them into DIR with dpkg -x.
# There, `source scripts/mpi_env.sh DIR` puts that mpirun first on PATH and relocates Open MPI
# (OPAL_PREFIX) and PMIx to DIR. The list is what ldd names for mpirun, orted, libmpi and the PMIx
# component, less what every Linux has (libc, zlib, libudev).
set -euo pipefail
cd "$(dirname "$0")/.."
dir=$(realpath -m "${1:-.gpu/mpi}")
pkgs=(openmpi-bin openmpi-common libopenmpi3 libhwloc15 libevent-core-2.1-7 libevent-pthreads-2.1-7 libpmix2
      libmunge2)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
(cd "$work" && apt-get download "${pkgs[@]}" >/dev/null 2>&1)
rm -rf "$dir"
mkdir -p "$dir"
for deb in "$work"/*.deb; do dpkg -x "$deb" "$dir"; done
# what a run does not need: documentation, manual pages, the Fortran and Java bindings
rm -rf "$dir"/usr/share/{doc,man,lintian} "$dir"/usr/lib/x86_64-linux-gnu/lib{mpi_mpifh,mpi_usempi,mpi_java}* \
  "$dir"/usr/lib/x86_64-linux-gnu/*gfortran* 2>/dev/null || true
ln -sfn orterun "$dir/usr/bin/mpirun"
echo "mpi_bundle: $(du -sh "$dir" | cut -f1) in $dir (${pkgs[*]})"

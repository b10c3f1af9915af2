#!/usr/bin/env bash
# Installs what the build needs from Debian's packages (skipped when already there):
#   bash scripts/deps.sh         for everything, the tests included
#   bash scripts/deps.sh main    for the tune binary alone (no GoogleTest, no Python test tools)
# The CUDA 13 toolkit (nvcc, NVRTC, cudart, cuBLAS) is expected under /usr/local/cuda.
set -euo pipefail
pkgs=(cmake g++ make libsqlite3-dev libspdlog-dev libfmt-dev libboost-program-options-dev
      nlohmann-json3-dev libeigen3-dev zlib1g-dev python3)
# Open MPI for the tests of the MPI ranks (tuner/mpi); a build without it has no ranks, as before.
[ "${1:-}" = main ] || pkgs+=(libgtest-dev python3-jsonschema python3-venv clang-format openmpi-bin libopenmpi-dev)
missing=()
for p in "${pkgs[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if ((${#missing[@]})); then
  echo "deps: installing ${missing[*]}"
  sudo_cmd=""; [ "$(id -u)" -eq 0 ] || sudo_cmd="sudo"
  $sudo_cmd apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo_cmd apt-get install -y -qq "${missing[@]}" >/dev/null
fi
if ! command -v nvcc >/dev/null && [ ! -x /usr/local/cuda/bin/nvcc ]; then
  echo "deps: the CUDA 13 toolkit is missing (expected /usr/local/cuda)" >&2
  exit 1
fi

#!/usr/bin/env bash
# Set up dependencies (scripts/setup.sh), configure and build everything into build/, the torch
# op library included unless EPIFUSE_TORCH=0.
# Parallel jobs: one per core, capped so that each nvcc gets ~4 GB (a CUTLASS kernel needs ~3.5).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
"$root/scripts/setup.sh"

mem_gb=$(awk '/MemTotal/ {print int($2 / 1048576)}' /proc/meminfo)
jobs=$(nproc)
(( jobs > mem_gb / 4 )) && jobs=$(( mem_gb / 4 ))
(( jobs < 1 )) && jobs=1

torch_args=(-DEPIFUSE_BUILD_TORCH=OFF)
if [ "${EPIFUSE_TORCH:-1}" != "0" ]; then
  torch_args=(-DEPIFUSE_BUILD_TORCH=ON "-DPython3_EXECUTABLE=$root/.deps/python/bin/python")
fi
cmake -S "$root" -B "$root/build" -DCMAKE_BUILD_TYPE=Release "${torch_args[@]}" ${EPIFUSE_CMAKE_ARGS:-} >/dev/null
cmake --build "$root/build" -j "$jobs" "$@"

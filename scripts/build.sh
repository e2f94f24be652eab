#!/usr/bin/env bash
# Set up dependencies (scripts/setup.sh), configure and build everything into build/.
# Parallel jobs: one per core, capped so that each nvcc gets ~4 GB (a CUTLASS kernel needs ~3.5).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
"$root/scripts/setup.sh"

mem_gb=$(awk '/MemTotal/ {print int($2 / 1048576)}' /proc/meminfo)
jobs=$(nproc)
(( jobs > mem_gb / 4 )) && jobs=$(( mem_gb / 4 ))
(( jobs < 1 )) && jobs=1

cmake -S "$root" -B "$root/build" -DCMAKE_BUILD_TYPE=Release ${EPIFUSE_CMAKE_ARGS:-} >/dev/null
cmake --build "$root/build" -j "$jobs" "$@"

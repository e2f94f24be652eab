#!/usr/bin/env bash
# The main job: set up, build, run the default benchmark suite (epifuse-bench). Without a Hopper
# GPU the bench says so, prints the plan and the roofline it would have measured, and exits 0.
# Arguments go to epifuse-bench (e.g. gemm --shape 4096x28672x8192).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
"$root/scripts/build.sh" --target epifuse-bench
cd "$root"
EPIFUSE_COMMIT=${EPIFUSE_COMMIT:-$(git rev-parse HEAD 2>/dev/null || echo unknown)} \
  exec "$root/build/bench/epifuse-bench" "$@"

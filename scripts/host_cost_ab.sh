#!/usr/bin/env bash
# Host cost of two builds of epifuse-bench, in turn on one core (the host's speed drifts between
# runs, so the rounds alternate): ROUNDS runs of `epifuse-bench host-cost` from each build.
#   scripts/host_cost_ab.sh NEW_BENCH OLD_BENCH OUT_DIR [ROUNDS]    (default 10 rounds)
# Summarise with tools/host_cost_ab.py OUT_DIR.
set -euo pipefail
new=$1 old=$2 out=$(mkdir -p "$3" && cd "$3" && pwd) rounds=${4:-10}
core=$(( $(nproc) > 4 ? 3 : 0 ))  # away from core 0, which takes most interrupts
for round in $(seq 1 "$rounds"); do
  for build in new old; do
    exe=$new
    [ "$build" = old ] && exe=$old
    taskset -c "$core" "$exe" host-cost --calls 10000 --json "$out/host-cost-$build-$round.json" \
      >"$out/host-cost-$build-$round.log" 2>&1
  done
done

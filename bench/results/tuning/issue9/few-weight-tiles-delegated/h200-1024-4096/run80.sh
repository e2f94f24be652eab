#!/usr/bin/env bash
# Experiment (H200): few weight tiles with K >= 1792 at 1024-4096 tokens delegated (the H100's bound
# on an HBM3e device; the bench times the own kernel forced beside each delegated call), on the
# earlier suites' draws of the class and 40 fresh draws (seed 20261127); then every bf16 gated
# kernel swept at 449-1024 tokens with K >= 8192 on wide weights and at 129-1024 tokens with K
# under 1024 (fresh draws, seed 202611271, and the a2d2825 suite's worst there).
set -u
mkdir -p /tmp/b /tmp/o && tar -xJf build-devbin/bin80.tar.xz -C /tmp/b
nvidia-smi --query-gpu=name,driver_version,power.limit --format=csv > /tmp/o/gpu.txt
cat /tmp/o/gpu.txt
s=$SECONDS
EPIFUSE_COMMIT=dev timeout 200 /tmp/b/exp/epifuse-bench gated --quick --graphs-up-to 256 \
  --shape $(cat build-devbin/class-seen.txt) $(cat build-devbin/class-fresh.txt) --json /tmp/o/delegate-1024-4096.json > /tmp/o/delegate-1024-4096.log 2>&1
echo "delegation rc $? after $((SECONDS-s)) s"
for part in long short; do
  EPIFUSE_COMMIT=b1866c1 timeout 170 /tmp/b/new/epifuse-bench gated --sweep --quick --graphs-up-to 256 \
    --shape $(cat build-devbin/sweep-$part.txt) --json /tmp/o/sweep-$part.json > /tmp/o/sweep-$part.log 2>&1
  echo "sweep $part rc $? after $((SECONDS-s)) s"
done
tar -cJf $OUT/run80.tar.xz -C /tmp/o .

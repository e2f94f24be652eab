#!/usr/bin/env bash
# Repeatability at one token: the 128x16 and the 128x32 forced, dispatched, cuBLASLt + act·mul, three
# processes (fresh allocations each).
set -u
mkdir -p /tmp/b /tmp/o && tar -xJf build-devbin/bin149.tar.xz -C /tmp/b
nvidia-smi --query-gpu=name,driver_version,power.limit --format=csv > /tmp/o/gpu.txt
s=$SECONDS
for p in 1 2 3; do
  timeout 45 /tmp/b/new/epifuse-bench gated --quick --graphs --sweep --sweep-only 128x16x128,coop_128x32x128_c1x1 \
    --shape 1x14336x4096 --shape 8x14336x4096 --shape 1x14336x3584 --json /tmp/o/repeat-$p.json > /tmp/o/repeat-$p.log 2>&1
  echo "process $p rc $? after $((SECONDS-s)) s"
done
tar -cJf $OUT/run149.tar.xz -C /tmp/o .

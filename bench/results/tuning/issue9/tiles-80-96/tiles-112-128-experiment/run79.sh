#!/usr/bin/env bash
# Experiment (not in the table): swapped cooperative 128x112 and 128x128 2x1 tiles at 97-128 tokens,
# built alone (EPIFUSE_KERNEL_FILTER) on e3afa33 with the two rows added, swept beside the pingpong
# 128x128 1x2 that dispatch runs there: seven catalogue MLPs at 97-128 tokens and 12 random draws of
# the branch (seed 20261231), CUDA-graph launches, H200.
set -u
mkdir -p /tmp/b /tmp/o && tar -xJf build-devbin/bin79.tar.xz -C /tmp/b
nvidia-smi --query-gpu=name,driver_version,power.limit --format=csv > /tmp/o/gpu.txt
cat /tmp/o/gpu.txt
s=$SECONDS
EPIFUSE_COMMIT=e3afa33+112 timeout 400 /tmp/b/exp/epifuse-bench gated --sweep --sweep-only 128x112x64 swap_coop_128x128x64_c2x1 bf16_pingpong_128x128x64_c1x2 \
  --quick --graphs --shape $(cat build-devbin/sweep79-shapes.txt) --json /tmp/o/sweep-97-128.json > /tmp/o/sweep-97-128.log 2>&1
echo "sweep rc $? after $((SECONDS-s)) s"
tar -cJf $OUT/run79.tar.xz -C /tmp/o .

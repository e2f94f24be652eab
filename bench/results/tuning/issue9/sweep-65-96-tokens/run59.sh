#!/usr/bin/env bash
# 65-96 tokens (three 32-token tiles): the swapped 128x32 kernels forced beside the
# dispatched call (f60880c) on eight catalogue MLPs and random draws (seed 2026112765).
set -u
mkdir -p /tmp/b /tmp/o && tar -xJf build-devbin/bin57.tar.xz -C /tmp/b
nvidia-smi --query-gpu=name,driver_version,power.limit --format=csv > /tmp/o/gpu.txt
cat /tmp/o/gpu.txt
s=$SECONDS
EPIFUSE_COMMIT=f60880c timeout 400 /tmp/b/new/epifuse-bench gated --sweep --sweep-only 128x32 \
  --shape $(cat build-devbin/sweep59-shapes.txt) --json /tmp/o/sweep-65-96.json > /tmp/o/sweep-65-96.log 2>&1
echo "rc $? $((SECONDS-s)) s"
tar -cJf $OUT/run59.tar.xz -C /tmp/o .

#!/usr/bin/env bash
# Decode by token count (1, 2, 4, 8, 16) on five weights: the swapped 128x32x128 kernels against a
# 128x16x128 one (fewer out-of-bounds x rows per box) and cuBLASLt + act·mul.
set -u
mkdir -p /tmp/b /tmp/o && tar -xJf build-devbin/bin146.tar.xz -C /tmp/b
nvidia-smi --query-gpu=name,driver_version,power.limit --format=csv > /tmp/o/gpu.txt
s=$SECONDS
S=""
for nk in 14336x4096 18944x3584 50688x1216 8192x2048 14336x3584; do
  for m in 1 2 4 8 16; do S="$S --shape ${m}x$nk"; done
done
timeout 400 /tmp/b/new/epifuse-bench gated --quick --graphs --sweep --sweep-only 128x32x128_c1x1,128x16x128 $S \
  --json /tmp/o/decode-by-tokens.json > /tmp/o/decode-by-tokens.log 2>&1
echo "sweep rc $? after $((SECONDS-s)) s"
tar -cJf $OUT/run146.tar.xz -C /tmp/o .

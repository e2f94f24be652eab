#!/usr/bin/env bash
# The token-tile kernels past 3.4 waves of weight tiles (one 144-224 tile, two of 160 or 224), every
# token-tile kernel and the pairs forced beside the dispatched call (df82c3b).
set -u
mkdir -p /tmp/b /tmp/o && tar -xJf build-devbin/bin48.tar.xz -C /tmp/b
nvidia-smi --query-gpu=name,driver_version,power.limit --format=csv > /tmp/o/gpu.txt
cat /tmp/o/gpu.txt
s=$SECONDS
EPIFUSE_COMMIT=df82c3b timeout 300 /tmp/b/new/epifuse-bench gated --sweep --sweep-only 128x144 128x160 128x176 128x208 128x224 128x96 swap_pingpong_128x128 bf16_pingpong_128x128 \
  --shape 141x29568x8192 136x53248x8192 140x40960x4096 170x36864x4096 200x40960x4096 300x29568x8192 310x40960x4096 400x29568x8192 440x36864x3072 \
  --json /tmp/o/sweep-past-3.4-waves.json > /tmp/o/sweep-past-3.4-waves.log 2>&1
echo "rc $? $((SECONDS-s)) s"
tar -cJf $OUT/run51.tar.xz -C /tmp/o .

#!/usr/bin/env bash
# 129-144 tokens past 3.4 waves of weight tiles: the 144- and 160-token kernels (whole, stream-K in
# both modes) and the 96-token pair forced beside the dispatched call (665ac94), K 4096-16384.
set -u
mkdir -p /tmp/b /tmp/o && tar -xJf build-devbin/bin55.tar.xz -C /tmp/b
nvidia-smi --query-gpu=name,driver_version,power.limit --format=csv > /tmp/o/gpu.txt
cat /tmp/o/gpu.txt
s=$SECONDS
EPIFUSE_COMMIT=665ac94 timeout 500 /tmp/b/new/epifuse-bench gated --sweep --sweep-only 128x144 128x160 swap_pingpong_128x96 \
  --shape 129x29568x8192 133x29568x8192 138x29568x8192 144x29568x8192 131x53248x16384 140x53248x16384 144x53248x16384 \
          137x31744x6144 142x45056x10240 130x36352x12288 135x40960x5120 143x58368x7168 139x33280x4096 134x64512x9216 \
  --json /tmp/o/sweep-129-144.json > /tmp/o/sweep-129-144.log 2>&1
echo "rc $? $((SECONDS-s)) s"
tar -cJf $OUT/run56.tar.xz -C /tmp/o .

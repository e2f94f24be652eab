#!/usr/bin/env bash
# Gated random suite, seed 20261202, draws of 1025-16384 tokens, the build of 5af6ff5 (H200).
set -u
mkdir -p /tmp/b && tar -xJf build-devbin/bin44.tar.xz -C /tmp/b
nvidia-smi --query-gpu=name,driver_version,power.limit --format=csv > $OUT/gpu.txt
export EPIFUSE_COMMIT=5af6ff5
s=$SECONDS
timeout 570 /tmp/b/epifuse-bench gated --random 200 --seed 20261202 --m-min 1025 --graphs-up-to 256 \
  --json $OUT/gated-random-seed20261202-m1025-16384.json > $OUT/gated-random-seed20261202-m1025-16384.log 2>&1
echo "rc $? after $((SECONDS-s)) s"
tail -30 $OUT/gated-random-seed20261202-m1025-16384.log

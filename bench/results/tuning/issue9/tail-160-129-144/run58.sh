#!/usr/bin/env bash
# On an H100: the whole-tile rule past 3.4 waves (ab52 shapes) and the 160-token tail rule (ab57
# shapes) at f60880c, with the 96- to 224-token kernels and the 128-token pairs forced beside the
# dispatched call; then the worst gated random draws of seed 20261202 swept over every kernel.
set -u
mkdir -p /tmp/b /tmp/o && tar -xJf build-devbin/bin57.tar.xz -C /tmp/b
nvidia-smi --query-gpu=name,driver_version,power.limit --format=csv > /tmp/o/gpu.txt
cat /tmp/o/gpu.txt
s=$SECONDS
EPIFUSE_COMMIT=f60880c timeout 330 /tmp/b/new/epifuse-bench gated --sweep --sweep-only 128x144 128x160 128x208 128x224 swap_pingpong_128x96 swap_pingpong_128x128 \
  --shape $(cat build-devbin/ab52-shapes.txt) $(cat build-devbin/ab57-shapes.txt) \
  --json /tmp/o/sweep-h100-wide.json > /tmp/o/sweep-h100-wide.log 2>&1
echo "wide rc $? $((SECONDS-s)) s"
s=$SECONDS
EPIFUSE_COMMIT=f60880c timeout 150 /tmp/b/new/epifuse-bench gated --sweep --shape 396x1280x1280 69x9920x6016 14x1344x3200 \
  --json /tmp/o/sweep-h100-worst.json > /tmp/o/sweep-h100-worst.log 2>&1
echo "worst rc $? $((SECONDS-s)) s"
tar -cJf $OUT/run58.tar.xz -C /tmp/o .

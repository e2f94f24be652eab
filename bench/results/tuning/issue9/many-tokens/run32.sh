#!/bin/bash
# Device call (H200): gated random draws of 4097-16384 tokens (never measured on an H200), with
# the large-M kernels swept beside the dispatched call.
mkdir -p /tmp/b && tar -xJf build-devbin/bin32.tar.xz -C /tmp/b
mkdir -p $OUT/r
nvidia-smi --query-gpu=name,driver_version,power.limit --format=csv > $OUT/r/gpu.csv
start=$SECONDS
timeout 570 /tmp/b/new/epifuse-bench gated --random 300 --seed 20261127 --m-min 4097 --quick --sweep \
  --sweep-only pingpong_128x128x64_c1x2 coop_128x256x64_c1x2 swap_coop_128x128x64_c1x1_streamk swap_coop_128x224x64_c2x1 swap_coop_128x160x64_c2x1 \
  --json $OUT/r/random-big-m.json > $OUT/r/random-big-m.log 2>&1
echo "random exit $? $((SECONDS-start)) s"
cd $OUT && tar -cJf r.tar.xz r && rm -rf r

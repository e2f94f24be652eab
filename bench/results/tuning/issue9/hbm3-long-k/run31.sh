#!/bin/bash
# Device call (H200 asked for): the pingpong 128x128 kernels against the cooperative 128x256 1x2
# (with its launch knobs) on long-K calls of many tokens where an H100 now runs the latter: data
# for whether the rule should reach HBM3e.
mkdir -p /tmp/b && tar -xJf build-devbin/bin28.tar.xz -C /tmp/b
mkdir -p $OUT/r
nvidia-smi --query-gpu=name,driver_version,power.limit --format=csv > $OUT/r/gpu.csv
start=$SECONDS
args=""
for s in 3153x12992x28544 8192x28672x8192 16384x28672x8192 4096x29568x8192 8192x17920x5120 16329x14784x19904 \
         14104x12352x13696 12000x4096x8192 1572x18112x53760 2949x27776x16832 6646x15424x23232 15772x51136x5696; do
  args="$args --shape $s"
done
timeout 240 /tmp/b/new/epifuse-bench gated $args --sweep --sweep-knobs --sweep-only pingpong_128x128x64_c1x2 coop_128x256x64_c1x2 --quick --json $OUT/r/h200-sweep.json > $OUT/r/h200-sweep.log 2>&1
echo "sweep exit $? $((SECONDS-start)) s"
cd $OUT && tar -cJf r.tar.xz r && rm -rf r

#!/bin/bash
# Device call (H100): launch knobs (raster, swizzle) of the cooperative 128x256 1x2 and the pingpong
# 128x128 1x2 on the large long-K calls where 1c36cab's rule lost or won most, and the narrow
# weights (N 256-1024) at 8000 tokens, K 12288, where it lost.
mkdir -p /tmp/b && tar -xJf build-devbin/bin26.tar.xz -C /tmp/b
mkdir -p $OUT/r
nvidia-smi --query-gpu=name,driver_version,power.limit --format=csv > $OUT/r/gpu.csv
start=$SECONDS
args=""
for s in 16329x14784x19904 14104x12352x13696 10239x6208x46720 16384x28672x8192 12000x4096x8192 8192x28672x8192 \
         6225x10560x20096; do args="$args --shape $s"; done
timeout 330 /tmp/b/new/epifuse-bench gated $args --sweep --sweep-knobs --sweep-only pingpong_128x128x64_c1x2 coop_128x256x64_c1x2 --quick --json $OUT/r/knobs.json > $OUT/r/knobs.log 2>&1
echo "knobs exit $? $((SECONDS-start)) s"
args=""
for n in 256 384 448 512 640 768 1024; do args="$args --shape 8000x${n}x12288"; done
timeout 150 /tmp/b/new/epifuse-bench gated $args --sweep --sweep-only pingpong_128x128x64_c1x2 coop_128x256x64_c1x2 --quick --json $OUT/r/narrow.json > $OUT/r/narrow.log 2>&1
echo "narrow exit $? $((SECONDS-start)) s"
cd $OUT && tar -cJf r.tar.xz r && rm -rf r

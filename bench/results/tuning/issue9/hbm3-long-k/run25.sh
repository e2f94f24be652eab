#!/bin/bash
# Device call (H100): the large-tile kernels against the pingpong 128x128 ones on long-K and
# large-weight gated calls of 512-16384 tokens (catalogue MLPs and random-like sizes).
mkdir -p /tmp/b && tar -xJf build-devbin/bin24.tar.xz -C /tmp/b
mkdir -p $OUT/r
nvidia-smi --query-gpu=name,driver_version,power.limit --format=csv > $OUT/r/gpu.csv
B=/tmp/b/new/epifuse-bench
shapes=""
for s in 512x28672x8192 1000x28672x8192 2048x28672x8192 16384x28672x8192 1024x29568x8192 4096x29568x8192 \
         8192x29568x8192 1024x17920x5120 4096x17920x5120 8192x17920x5120 16384x14336x4096 8192x14336x3584 \
         8192x18944x3584 1024x53248x16384 2048x53248x16384 700x8192x12288 1500x11008x6144 6000x5120x10240 \
         12000x4096x8192 3000x22016x6144 2500x5120x5120 6000x6144x6144 10000x4096x16384 777x28672x8192; do
  shapes="$shapes --shape $s"
done
start=$SECONDS
timeout 500 $B gated $shapes --sweep --sweep-only pingpong_128x128x64_c1x2 coop_128x256x64_c1x2 swap_coop_128x160x64_c2x1 swap_coop_128x224x64_c2x1 --quick --json $OUT/r/sweep2.json > $OUT/r/sweep2.log 2>&1
echo "sweep exit $? $((SECONDS-start)) s"
cd $OUT && tar -cJf r.tar.xz r && rm -rf r

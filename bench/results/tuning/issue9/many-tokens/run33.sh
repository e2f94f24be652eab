#!/bin/bash
# Device call (H200): the pingpong 128x128 1x2 kernels (and the cooperative 128x256 1x2) under
# every launch knob at the big-M random draws where the unswapped pingpong lost.
mkdir -p /tmp/b && tar -xJf build-devbin/bin32.tar.xz -C /tmp/b
mkdir -p $OUT/r
nvidia-smi --query-gpu=name,driver_version,power.limit --format=csv > $OUT/r/gpu.csv
start=$SECONDS
args=""
for s in 14910x5312x9856 10767x4288x5888 13074x15552x21248 12651x29248x10944 14862x34432x7744 11922x704x6912 15440x1088x3776 6666x26560x8000; do
  args="$args --shape $s"
done
timeout 540 /tmp/b/new/epifuse-bench gated $args --sweep --sweep-knobs --sweep-only pingpong_128x128x64_c1x2 coop_128x256x64_c1x2 --quick --json $OUT/r/knobs.json > $OUT/r/knobs.log 2>&1
echo "knobs exit $? $((SECONDS-start)) s"
cd $OUT && tar -cJf r.tar.xz r && rm -rf r

#!/bin/bash
# Device call (H100): why the fused pingpong 128x128 1x2 runs 430-620 TFLOP/s on large compute-bound
# gated calls where cuBLASLt runs 755. Every bf16 gated kernel and launch knob on the H100 suite's
# losers and catalogue prefill shapes; ncu's DRAM bytes, L2 hit rate and clock on one of them;
# nvidia-smi dmon (power, clocks) through the sweep.
mkdir -p /tmp/b && tar -xJf build-devbin/bin24.tar.xz -C /tmp/b
mkdir -p $OUT/r
nvidia-smi --query-gpu=name,driver_version,power.limit,clocks.max.sm --format=csv > $OUT/r/gpu.csv
nvidia-smi dmon -s pc -d 1 > $OUT/r/dmon.txt 2>&1 &
dmon=$!
B=/tmp/b/new/epifuse-bench
shapes=""
for s in 3153x12992x28544 3363x11904x19776 2605x65024x5184 1148x33344x6592 1343x33984x1792 1698x6336x3328 \
         2344x20096x3136 1485x26752x3840 2048x14336x4096 4097x14336x4096 8192x14336x4096 4096x28672x8192 \
         8192x28672x8192 4096x18944x3584; do shapes="$shapes --shape $s"; done
start=$SECONDS
timeout 330 $B gated $shapes --sweep --sweep-knobs --quick --json $OUT/r/sweep.json > $OUT/r/sweep.log 2>&1
echo "sweep exit $? $((SECONDS-start)) s"
kill $dmon
M="gpu__time_duration.sum,dram__bytes_read.sum,dram__bytes_write.sum,lts__t_sector_hit_rate.pct,sm__cycles_elapsed.avg.per_second,lts__t_sectors.sum"
for s in 3153x12992x28544 4096x28672x8192; do
  timeout 100 ncu --clock-control none --metrics $M -k regex:device_kernel --launch-count 1 --csv $B gated --shape $s --no-check --quick --json /tmp/ncu.json > $OUT/r/ncu-$s.csv 2> $OUT/r/ncu-$s.err
done
echo "ncu exit $? $((SECONDS-start)) s"
cd $OUT && tar -cJf r.tar.xz r && rm -rf r

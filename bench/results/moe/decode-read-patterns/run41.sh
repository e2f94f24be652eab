#!/usr/bin/env bash
# ncu of the grouped warp-mma kernel (m0u4 = as built) and the CUTLASS 128x32 grouped kernel, one token.
set -u
mkdir -p /tmp/b && tar -xJf build-devbin/bin40.tar.xz -C /tmp/b
mkdir -p /tmp/o
nvidia-smi --query-gpu=name,driver_version,power.limit --format=csv > /tmp/o/gpu.txt
secs="--section SpeedOfLight --section Occupancy --section LaunchStats --section WarpStateStats --section MemoryWorkloadAnalysis --section SchedulerStats"
for v in m0u4 m1u2; do
  for m in qwen2-57b deepseek-v3 mixtral; do
    timeout 100 ncu --kernel-name-base mangled --kernel-name regex:warp_mma --launch-skip 2 --launch-count 1 $secs /tmp/b/$v/epifuse-grouped-probe --rows-first --tokens 1 $m > /tmp/o/ncu-$v-$m.txt 2>&1
    echo "ncu $v $m rc $?"
  done
done
timeout 100 ncu --kernel-name-base mangled --kernel-name regex:GemmUniversal --launch-skip 0 --launch-count 1 $secs /tmp/b/m0u4/epifuse-grouped-probe --rows-first --tokens 1 deepseek-v3 > /tmp/o/ncu-cutlass-deepseek-v3.txt 2>&1
echo "ncu cutlass rc $?"
for v in m1u4 m1u3 m0u4; do
  timeout 80 /tmp/b/$v/epifuse-grouped-probe --rows-first --tokens 1,2,8 deepseek-v3 qwen2-57b mixtral gpt-oss-20b qwen3-30b-a3b > /tmp/o/gateup-$v-p3.log 2>&1
  echo "gateup $v rc $?"
done
tar -cJf $OUT/run41.tar.xz -C /tmp/o .

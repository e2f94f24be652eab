#!/usr/bin/env bash
# 5d1b859 + the probe's stages/cluster columns: what cuBLASLt runs at the gated bands epifuse loses
# (594-598, 944, 373 tokens) and at whole-tile controls: its candidates timed, their kernel names
# (ncu, --once), SpeedOfLight of its first candidate and of epifuse's dispatched kernel at
# 594x14336x4096. On an H200, then the short-K caps' A/B owed there.
set -u
mkdir -p /tmp/b /tmp/o && tar -xJf build-devbin/bin102.tar.xz -C /tmp/b
pack() { tar -cJf $OUT/run102.tar.xz -C /tmp/o .; }
nvidia-smi --query-gpu=name,driver_version,power.limit --format=csv > /tmp/o/gpu.txt
cat /tmp/o/gpu.txt
s=$SECONDS
SHAPES="594x14336x4096 598x18944x3584 597x8192x3072 594x28672x8192 944x8192x3072 373x17920x5120 640x14336x4096 1500x14336x4096 2382x14336x3584"
timeout 60 /tmp/b/new/epifuse-cublaslt-probe $SHAPES > /tmp/o/probe-timed.log 2>&1
echo "probe rc $? after $((SECONDS-s)) s"
timeout 150 ncu --metrics gpu__time_duration.sum --csv /tmp/b/new/epifuse-cublaslt-probe --once $SHAPES > /tmp/o/probe-ncu-names.csv 2> /tmp/o/probe-ncu.err
echo "ncu names rc $? after $((SECONDS-s)) s"
pack
timeout 90 ncu --section SpeedOfLight --section LaunchStats --section Occupancy --section ComputeWorkloadAnalysis --section MemoryWorkloadAnalysis \
  /tmp/b/new/epifuse-cublaslt-probe --once 594x14336x4096 > /tmp/o/probe-ncu-sol-594.txt 2>&1
echo "ncu cublaslt sol rc $? after $((SECONDS-s)) s"
EPIFUSE_COMMIT=5d1b859 timeout 90 ncu -k regex:cutlass -c 1 --section SpeedOfLight --section LaunchStats --section Occupancy --section ComputeWorkloadAnalysis --section MemoryWorkloadAnalysis \
  /tmp/b/new/epifuse-bench gated --quick --shape 594x14336x4096 > /tmp/o/epifuse-ncu-sol-594.txt 2>&1
echo "ncu epifuse sol rc $? after $((SECONDS-s)) s"
pack
if grep -q H200 /tmp/o/gpu.txt; then
  EPIFUSE_COMMIT=5d1b859 timeout 200 /tmp/b/new/epifuse-bench gated --sweep --quick \
    --sweep-only 128x144x64 128x208x64 bf16_pingpong_128x128 \
    --shape $(cat build-devbin/ab-token-tile-cap.txt) --json /tmp/o/ab-cap-h200.json > /tmp/o/ab-cap-h200.log 2>&1
  echo "cap A/B rc $? after $((SECONDS-s)) s"
  pack
fi

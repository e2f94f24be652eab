#!/usr/bin/env bash
# Read patterns of decode weights (bench/probes/read_pattern_probe.cu), twice.
set -u
mkdir -p /tmp/b && tar -xJf build-devbin/bin42.tar.xz -C /tmp/b
nvidia-smi --query-gpu=name,driver_version,power.limit,clocks.max.sm,clocks.max.mem --format=csv > $OUT/gpu.txt
cat $OUT/gpu.txt
for pass in 1 2; do
  timeout 200 /tmp/b/read-pattern-probe > $OUT/read-pattern-p$pass.log 2>&1; echo "pass $pass rc $?"
done
cat $OUT/read-pattern-p1.log

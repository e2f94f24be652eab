#!/usr/bin/env bash
# Grouped warp-mma kernel with an L2 prefetch of the round pf rounds ahead (experiment), ABBA.
set -u
mkdir -p /tmp/b /tmp/o && tar -xJf build-devbin/bin43.tar.xz -C /tmp/b
nvidia-smi --query-gpu=name,driver_version,power.limit --format=csv > /tmp/o/gpu.txt
models="deepseek-v3 qwen2-57b mixtral gpt-oss-20b qwen3-30b-a3b"
p=0
for v in pf0 pf1 pf2 pf2 pf1 pf0; do
  p=$((p+1))
  timeout 80 /tmp/b/$v/epifuse-grouped-probe --rows-first --tokens 1,2,8 $models > /tmp/o/gateup-$v-$p.log 2>&1; echo "gateup $v $p rc $?"
  timeout 60 /tmp/b/$v/epifuse-grouped-probe --rows-first --down --tokens 1,2 $models > /tmp/o/down-$v-$p.log 2>&1; echo "down $v $p rc $?"
done
tar -cJf $OUT/run43.tar.xz -C /tmp/o .

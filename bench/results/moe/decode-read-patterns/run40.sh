#!/usr/bin/env bash
# Grouped warp-mma kernel variants (experiment): m<mode>u<unroll>; mode 1 = single pass for <= 8 rows.
set -u
mkdir -p /tmp/b && tar -xJf build-devbin/bin40.tar.xz -C /tmp/b
nvidia-smi --query-gpu=name,driver_version,power.limit --format=csv > $OUT/gpu.txt
models="deepseek-v3 qwen2-57b mixtral gpt-oss-20b qwen3-30b-a3b"
for pass in 1 2; do
  order="m0u4 m1u4 m1u3 m1u2"; [ $pass = 2 ] && order="m1u2 m1u3 m1u4 m0u4"
  for v in $order; do
    s=$SECONDS
    timeout 80 /tmp/b/$v/epifuse-grouped-probe --rows-first --tokens 1,2,8 $models > $OUT/gateup-$v-p$pass.log 2>&1
    echo "gateup $v pass $pass rc $? $((SECONDS-s)) s"
  done
done
for v in m0u4 m1u4 m1u3 m1u2; do
  s=$SECONDS
  timeout 60 /tmp/b/$v/epifuse-grouped-probe --rows-first --down --tokens 1,2 deepseek-v3 qwen2-57b mixtral > $OUT/down-$v.log 2>&1
  echo "down $v rc $? $((SECONDS-s)) s"
done

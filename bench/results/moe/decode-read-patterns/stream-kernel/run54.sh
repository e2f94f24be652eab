#!/usr/bin/env bash
# The persistent ring kernel for the grouped warp-mma calls: grouped GPU tests, memcheck on its
# cases, and the grouped probe's gate/up at 1, 2 and 8 tokens, old and new builds (new, old, old, new).
set -u
mkdir -p /tmp/b /tmp/o && tar -xJf build-devbin/bin53.tar.xz -C /tmp/b
nvidia-smi --query-gpu=name,driver_version,power.limit --format=csv > /tmp/o/gpu.txt
s=$SECONDS
timeout 200 /tmp/b/new/epifuse_gpu_tests --gtest_filter='*Grouped*:*Moe*:*Streams*' > /tmp/o/gpu-tests-grouped.log 2>&1
echo "gpu tests rc $? $((SECONDS-s)) s"; tail -3 /tmp/o/gpu-tests-grouped.log; grep "FAILED" /tmp/o/gpu-tests-grouped.log | head
s=$SECONDS
timeout 150 compute-sanitizer --tool memcheck /tmp/b/new/epifuse_gpu_tests --gtest_filter='*Reference/E4_T32*:*Reference/E300*:*Reference/E4_T16_N12288*:*Reference/E2_T2_N7168*' > /tmp/o/memcheck.log 2>&1
echo "memcheck rc $? $((SECONDS-s)) s"; tail -4 /tmp/o/memcheck.log
models="qwen2-57b deepseek-v3 mixtral qwen3-30b-a3b"
for pass in 1 2; do
  order="new old"; [ $pass = 2 ] && order="old new"
  for v in $order; do
    s=$SECONDS
    timeout 90 /tmp/b/$v/epifuse-grouped-probe --rows-first --tokens 1,2,8 $models > /tmp/o/gateup-$v-p$pass.log 2>&1
    echo "gateup $v pass $pass rc $? $((SECONDS-s)) s"
  done
done
tar -cJf $OUT/run54.tar.xz -C /tmp/o .

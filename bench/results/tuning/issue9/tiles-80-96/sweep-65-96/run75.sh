#!/usr/bin/env bash
# Swapped cooperative 128x80 and 128x96 2x1 tiles (new) at 65-96 tokens, where one 128-token tile
# of the pingpong computes 33-97 % more rows than the call has: their GPU cases and memcheck, then
# swept against the kernels dispatch runs there on the catalogue MLPs and 14 random draws
# (seed 20261228), CUDA-graph launches, H200.
set -u
mkdir -p /tmp/b /tmp/o && tar -xJf build-devbin/bin75.tar.xz -C /tmp/b
nvidia-smi --query-gpu=name,driver_version,power.limit --format=csv > /tmp/o/gpu.txt
cat /tmp/o/gpu.txt
s=$SECONDS
f='*swap_coop_128x80x64_c2x1*:*swap_coop_128x96x64_c2x1*'
timeout 120 /tmp/b/new/epifuse_gpu_tests --gtest_filter="$f" > /tmp/o/gpu-tests.log 2>&1
echo "gpu tests rc $? after $((SECONDS-s)) s"; tail -3 /tmp/o/gpu-tests.log
timeout 200 compute-sanitizer --tool memcheck /tmp/b/new/epifuse_gpu_tests --gtest_filter="$f" > /tmp/o/memcheck.log 2>&1
echo "memcheck rc $? after $((SECONDS-s)) s"; tail -3 /tmp/o/memcheck.log
only="pingpong_128x128x64_c1x2 swap_coop_128x32x128_c1x1 swap_coop_128x128x64_c1x1_streamk 128x80x64 128x96x64"
for part in a b; do
  EPIFUSE_COMMIT=dev timeout 250 /tmp/b/new/epifuse-bench gated --sweep --sweep-only $only --quick --graphs \
    --shape $(cat build-devbin/sweep75$part-shapes.txt) --json /tmp/o/sweep-$part.json > /tmp/o/sweep-$part.log 2>&1
  echo "sweep $part rc $? after $((SECONDS-s)) s"
done
tar -cJf $OUT/run75.tar.xz -C /tmp/o .

#!/usr/bin/env bash
# The swapped 128x32 in 1x2 pairs (weight multicast along the tokens), new: its GPU cases, memcheck
# over them, then swept against the 128x32 1x1 (and its stream-K twin) and the 96-token pair on 59
# shapes of 33-256 tokens (seed 20261227 draws the rule gives the 128x32, some it gives others,
# and the five worst known draws), CUDA-graph launches, H200.
set -u
mkdir -p /tmp/b /tmp/o && tar -xJf build-devbin/bin74.tar.xz -C /tmp/b
nvidia-smi --query-gpu=name,driver_version,power.limit --format=csv > /tmp/o/gpu.txt
cat /tmp/o/gpu.txt
s=$SECONDS
timeout 120 /tmp/b/new/epifuse_gpu_tests --gtest_filter='*128x32x128_c1x2*' > /tmp/o/gpu-tests.log 2>&1
echo "gpu tests rc $? after $((SECONDS-s)) s"; tail -3 /tmp/o/gpu-tests.log
timeout 200 compute-sanitizer --tool memcheck /tmp/b/new/epifuse_gpu_tests --gtest_filter='*128x32x128_c1x2*' > /tmp/o/memcheck.log 2>&1
echo "memcheck rc $? after $((SECONDS-s)) s"; tail -3 /tmp/o/memcheck.log
EPIFUSE_COMMIT=dev timeout 330 /tmp/b/new/epifuse-bench gated --sweep --sweep-only swap_coop_128x32x128 swap_pingpong_128x96 --quick --graphs \
  --shape $(cat build-devbin/sweep74-shapes.txt) --json /tmp/o/sweep.json > /tmp/o/sweep.log 2>&1
echo "sweep rc $? after $((SECONDS-s)) s"
tar -cJf $OUT/run74.tar.xz -C /tmp/o .

#!/usr/bin/env bash
# ec542b3 on an H100: the gated GPU suite (the HBM3 swapped-tiles rule's two cases among them),
# memcheck on those two cases; the rule's fresh A/B (seed 202611288: 31 draws of 1025-4096 tokens,
# K 2048-5119, not delegated) with both pingpong 128x128 kernels and the cooperative 128x256 1x2
# forced beside the dispatched call.
set -u
mkdir -p /tmp/b /tmp/o && tar -xJf build-devbin/bin96.tar.xz -C /tmp/b
pack() { tar -cJf $OUT/run96.tar.xz -C /tmp/o .; }
nvidia-smi --query-gpu=name,driver_version,power.limit --format=csv > /tmp/o/gpu.txt
cat /tmp/o/gpu.txt
s=$SECONDS
timeout 150 /tmp/b/new/epifuse_gpu_tests --gtest_filter='*Gated*:-*Grouped*' > /tmp/o/gpu-tests.log 2>&1
echo "gpu tests rc $? after $((SECONDS-s)) s"; grep -E "PASSED|FAILED" /tmp/o/gpu-tests.log | tail -6
timeout 60 compute-sanitizer --tool memcheck /tmp/b/new/epifuse_gpu_tests \
  --gtest_filter='*MatchesReference/1100x8320x2048_*:*MatchesReference/1300x8320x2112_*' > /tmp/o/memcheck.log 2>&1
echo "memcheck rc $? after $((SECONDS-s)) s"; tail -2 /tmp/o/memcheck.log
pack
EPIFUSE_COMMIT=ec542b3 timeout $((570-SECONDS)) /tmp/b/new/epifuse-bench gated --sweep --quick \
  --sweep-only bf16_pingpong_128x128 swap_pingpong_128x128 bf16_coop_128x256 \
  --shape $(cat build-devbin/ab-hbm3-fresh3.txt) --json /tmp/o/ab-hbm3-fresh3.json > /tmp/o/ab-hbm3-fresh3.log 2>&1
echo "A/B rc $? after $((SECONDS-s)) s"; tail -3 /tmp/o/ab-hbm3-fresh3.log
pack

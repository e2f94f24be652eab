#!/usr/bin/env bash
# 060420d: the gated GPU tests and memcheck on the short-K cases; the fresh A/B of the short-K
# model's token-tile caps (12 draws of seed 202611285 that e9f6571 changed; ea1248a's kernels
# forced beside the dispatched call); the three-model thinned gated grid as at 57fbe8b.
set -u
mkdir -p /tmp/b /tmp/o && tar -xJf build-devbin/bin91.tar.xz -C /tmp/b
pack() { tar -cJf $OUT/run91.tar.xz -C /tmp/o .; }
nvidia-smi --query-gpu=name,driver_version,power.limit --format=csv > /tmp/o/gpu.txt
cat /tmp/o/gpu.txt
s=$SECONDS
timeout 150 /tmp/b/new/epifuse_gpu_tests --gtest_filter='*Gated*:-*Grouped*' > /tmp/o/gpu-tests.log 2>&1
echo "gpu tests rc $? after $((SECONDS-s)) s"; tail -3 /tmp/o/gpu-tests.log
timeout 90 compute-sanitizer --tool memcheck /tmp/b/new/epifuse_gpu_tests \
  --gtest_filter='*MatchesReference/161x14848x320_*:*MatchesReference/200x9856x384_*:*MatchesReference/1200x8192x320_*' > /tmp/o/memcheck.log 2>&1
echo "memcheck rc $? after $((SECONDS-s)) s"; tail -4 /tmp/o/memcheck.log
pack
EPIFUSE_COMMIT=060420d timeout 200 /tmp/b/new/epifuse-bench gated --sweep --quick \
  --sweep-only 128x144x64 128x208x64 bf16_pingpong_128x128 \
  --shape $(cat build-devbin/ab-token-tile-cap.txt) --json /tmp/o/ab-cap.json > /tmp/o/ab-cap.log 2>&1
echo "cap A/B rc $? after $((SECONDS-s)) s"
pack
EPIFUSE_COMMIT=060420d timeout $((575-SECONDS)) /tmp/b/new/epifuse-bench gated --quick --grid --grid-every 6 --m-max 4200 \
  --graphs-up-to 256 --models llama3-70b,llama3-8b,qwen2.5-7b --json /tmp/o/gated-grid-three.json > /tmp/o/grid-three.log 2>&1
echo "grid three rc $? after $((SECONDS-s)) s"
pack

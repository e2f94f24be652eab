#!/usr/bin/env bash
# pingpong112_pays: the gated GPU tests (its two new cases among them) and memcheck on those; its
# fresh A/B (26 draws of seed 202611284 it changes, the pingpong 128x128 or the 128-token pair it
# replaced forced beside it); then the three-model thinned gated grid as at 57fbe8b.
set -u
mkdir -p /tmp/b /tmp/o && tar -xJf build-devbin/bin110.tar.xz -C /tmp/b
pack() { tar -cJf $OUT/run110.tar.xz -C /tmp/o .; }
nvidia-smi --query-gpu=name,driver_version,power.limit --format=csv > /tmp/o/gpu.txt
cat /tmp/o/gpu.txt
s=$SECONDS
C=$(cat build-devbin/commit.txt)
timeout 200 /tmp/b/new/epifuse_gpu_tests --gtest_filter='*Gated*:-*Grouped*' > /tmp/o/gpu-tests.log 2>&1
echo "gpu tests rc $? after $((SECONDS-s)) s"; tail -3 /tmp/o/gpu-tests.log
timeout 90 compute-sanitizer --tool memcheck /tmp/b/new/epifuse_gpu_tests \
  --gtest_filter='*MatchesReference/101x8960x2048_*:*MatchesReference/215x28800x2112_*' > /tmp/o/memcheck.log 2>&1
echo "memcheck rc $? after $((SECONDS-s)) s"; tail -4 /tmp/o/memcheck.log
pack
EPIFUSE_COMMIT=$C timeout 150 /tmp/b/new/epifuse-bench gated --sweep --quick \
  --sweep-only bf16_pingpong_128x128 swap_pingpong_128x128x64 --shape $(cat build-devbin/p112-fresh-ab.txt) \
  --json /tmp/o/p112-ab.json > /tmp/o/p112-ab.log 2>&1
echo "p112 A/B rc $? after $((SECONDS-s)) s"
pack
EPIFUSE_COMMIT=$C timeout $((575-SECONDS)) /tmp/b/new/epifuse-bench gated --quick --grid --grid-every 6 --m-max 4200 \
  --graphs-up-to 256 --models llama3-70b,llama3-8b,qwen2.5-7b --json /tmp/o/gated-grid-three.json > /tmp/o/grid-three.log 2>&1
echo "grid three rc $? after $((SECONDS-s)) s"
pack

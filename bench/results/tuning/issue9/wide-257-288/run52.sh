#!/usr/bin/env bash
# 5441070 (whole token tiles past 3.4 waves): the gated GPU tests, memcheck over the new dispatched
# cases, and an A/B (new, old, old, new) against df82c3b on fresh shapes of the changed classes
# (seed 20261204), Qwen2.5-72B and Llama-3 405B, and two unchanged controls.
set -u
mkdir -p /tmp/b /tmp/o && tar -xJf build-devbin/bin52.tar.xz -C /tmp/b
nvidia-smi --query-gpu=name,driver_version,power.limit --format=csv > /tmp/o/gpu.txt
cat /tmp/o/gpu.txt
s=$SECONDS
timeout 170 /tmp/b/new/epifuse_gpu_tests --gtest_filter='*Gated*' > /tmp/o/gpu-gated-tests.log 2>&1
echo "gated tests rc $? $((SECONDS-s)) s"; grep -E '^\[  (PASSED|FAILED) |tests? from .* ran' /tmp/o/gpu-gated-tests.log | tail -3
grep -E '^\[gated\].*(300x28800x256|270x28800x256|700x8192x320)' /tmp/o/gpu-gated-tests.log
s=$SECONDS
timeout 90 compute-sanitizer --tool memcheck --error-exitcode 9 /tmp/b/new/epifuse_gpu_tests \
  --gtest_filter='*MatchesReference/300x28800x256*:*MatchesReference/270x28800x256*' > /tmp/o/memcheck-new-cases.log 2>&1
echo "memcheck rc $? $((SECONDS-s)) s"; tail -2 /tmp/o/memcheck-new-cases.log
shapes=$(cat build-devbin/ab52-shapes.txt)
p=0
for v in new old old new; do
  p=$((p+1)); s=$SECONDS
  EPIFUSE_COMMIT=$([ $v = new ] && echo 5441070 || echo df82c3b) timeout 80 /tmp/b/$v/epifuse-bench gated --shape $shapes --json /tmp/o/ab-$v-$p.json > /tmp/o/ab-$v-$p.log 2>&1
  echo "$v pass $p rc $? $((SECONDS-s)) s"
done
tar -cJf $OUT/run52.tar.xz -C /tmp/o .

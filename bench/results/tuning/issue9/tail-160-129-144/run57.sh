#!/usr/bin/env bash
# f60880c (the 160-token stream-K kernel sharing its tail at 129-144 tokens past 3.4 waves, K >=
# 8192): the gated GPU tests, memcheck over the new case, and an A/B (new, old, old, new) against
# 665ac94 on fresh shapes of the class (seed 20261127), Qwen2.5-72B and Llama-3 405B, two controls.
set -u
mkdir -p /tmp/b /tmp/o && tar -xJf build-devbin/bin57.tar.xz -C /tmp/b
nvidia-smi --query-gpu=name,driver_version,power.limit --format=csv > /tmp/o/gpu.txt
cat /tmp/o/gpu.txt
s=$SECONDS
timeout 200 /tmp/b/new/epifuse_gpu_tests --gtest_filter='*Gated*:-*Grouped*' > /tmp/o/gpu-gated-tests.log 2>&1
echo "gated tests rc $? $((SECONDS-s)) s"; grep -E '^\[  (PASSED|FAILED) |tests? from .* ran' /tmp/o/gpu-gated-tests.log | tail -3
grep -E '^\[gated\].*131x28800x8192' /tmp/o/gpu-gated-tests.log
s=$SECONDS
timeout 120 compute-sanitizer --tool memcheck --error-exitcode 9 /tmp/b/new/epifuse_gpu_tests \
  --gtest_filter='*MatchesReference/131x28800x8192*' > /tmp/o/memcheck-new-case.log 2>&1
echo "memcheck rc $? $((SECONDS-s)) s"; tail -2 /tmp/o/memcheck-new-case.log
shapes=$(cat build-devbin/ab57-shapes.txt)
p=0
for v in new old old new; do
  p=$((p+1)); s=$SECONDS
  EPIFUSE_COMMIT=$([ $v = new ] && echo f60880c || echo 665ac94) timeout 100 /tmp/b/$v/epifuse-bench gated --shape $shapes --json /tmp/o/ab-$v-$p.json > /tmp/o/ab-$v-$p.log 2>&1
  echo "$v pass $p rc $? $((SECONDS-s)) s"
done
tar -cJf $OUT/run57.tar.xz -C /tmp/o .

#!/usr/bin/env bash
# df82c3b: memcheck over the two new dispatched GPU cases; A/B (new, old, old, new) on 16 fresh
# shapes of the two classes (seed 20261203). new = df82c3b, old = 5af6ff5.
set -u
mkdir -p /tmp/b /tmp/o && tar -xJf build-devbin/bin48.tar.xz -C /tmp/b
nvidia-smi --query-gpu=name,driver_version,power.limit --format=csv > /tmp/o/gpu.txt
cat /tmp/o/gpu.txt
timeout 150 compute-sanitizer --tool memcheck --error-exitcode 9 /tmp/b/new/epifuse_gpu_tests \
  --gtest_filter='*MatchesReference/270x28800x256*:*MatchesReference/700x8192x320*:*MatchesReference/270x7168x1024*' > /tmp/o/memcheck-new-cases.log 2>&1
echo "memcheck exit $?"; tail -4 /tmp/o/memcheck-new-cases.log
shapes=$(cat build-devbin/ab49-shapes.txt)
p=0
for v in new old old new; do
  p=$((p+1)); s=$SECONDS
  EPIFUSE_COMMIT=$([ $v = new ] && echo df82c3b || echo 5af6ff5) timeout 120 /tmp/b/$v/epifuse-bench gated --shape $shapes --json /tmp/o/ab-$v-$p.json > /tmp/o/ab-$v-$p.log 2>&1
  echo "$v pass $p rc $? $((SECONDS-s)) s"
done
tar -cJf $OUT/run49.tar.xz -C /tmp/o .

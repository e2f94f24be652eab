#!/usr/bin/env bash
# The final build (the warm-up only where tilings are timed): unit tests, the gated path GPU
# tests and memcheck on them, and two first launches logged (a fused-or-delegated choice at 200
# tokens, a tiling choice at 645).
set -u
mkdir -p /tmp/b /tmp/o && rm -rf /tmp/o/* && tar -xJf build-devbin/bin165.tar.xz -C /tmp/b
nvidia-smi --query-gpu=name,driver_version,power.limit --format=csv > /tmp/o/gpu.txt
s=$SECONDS
/tmp/b/new/epifuse_unit_tests > /tmp/o/unit.log 2>&1; echo "unit rc $? after $((SECONDS-s)) s"
timeout 120 /tmp/b/new/epifuse_gpu_tests --gtest_filter='GatedPaths.*' > /tmp/o/gated-paths.log 2>&1
echo "gated paths rc $? after $((SECONDS-s)) s"
timeout 120 compute-sanitizer --tool memcheck --error-exitcode 9 /tmp/b/new/epifuse_gpu_tests \
  --gtest_filter='GatedPaths.*' > /tmp/o/memcheck.log 2>&1
echo "memcheck rc $? after $((SECONDS-s)) s"
EPIFUSE_DELEGATED_TUNING=log timeout 60 /tmp/b/new/epifuse-bench gated --quick --shape 200x14336x4096 \
  --shape 645x14336x4096 --json /tmp/o/two-shapes.json > /tmp/o/two-shapes.log 2>&1
echo "two shapes rc $? after $((SECONDS-s)) s"
tar -cJf $OUT/run165.tar.xz -C /tmp/o .

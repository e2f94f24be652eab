#!/usr/bin/env bash
# GPU proof of df82c3b: the GPU suite, then memcheck over the two new dispatched cases.
set -u
mkdir -p /tmp/b && tar -xJf build-devbin/bin48.tar.xz -C /tmp/b
mkdir -p /tmp/o
nvidia-smi --query-gpu=name,driver_version,power.limit --format=csv > /tmp/o/gpu.csv
cat /tmp/o/gpu.csv
GPU_TESTS_TIMEOUT=260 timeout 290 scripts/gpu_validation.sh /tmp/b/new /tmp/o/v tests
echo "validation exit $?"
timeout 200 compute-sanitizer --tool memcheck --error-exitcode 9 /tmp/b/new/epifuse_gpu_tests \
  --gtest_filter='*Features/270x28800x256*:*Features/700x8192x320*:*Features/270x7168x1024*' > /tmp/o/memcheck-new-cases.log 2>&1
echo "memcheck exit $?"; tail -3 /tmp/o/memcheck-new-cases.log
grep -E '^\[gated\].*(270x28800x256|700x8192x320)' /tmp/o/v/gpu_tests.log | head
cd /tmp/o && tar -cJf $OUT/run48.tar.xz .

#!/usr/bin/env bash
# GPU proof of the timed tilings at 577-768 tokens: unit, API, the GPU suite, first-call, the
# example; memcheck on the gated path tests.
set -u
mkdir -p /tmp/b /tmp/o && tar -xJf build-devbin/bin159.tar.xz -C /tmp/b
nvidia-smi --query-gpu=name,driver_version,power.limit --format=csv > /tmp/o/gpu.txt
s=$SECONDS
mkdir -p /tmp/bin && cp /tmp/b/new/* /tmp/bin/
GPU_TESTS_TIMEOUT=300 ./scripts/gpu_validation.sh /tmp/bin /tmp/o/proof tests > /tmp/o/proof.txt 2>&1
echo "tests after $((SECONDS-s)) s"
timeout 60 compute-sanitizer --tool memcheck --error-exitcode 9 /tmp/bin/epifuse_gpu_tests \
  --gtest_filter='GatedPaths.*' > /tmp/o/memcheck.log 2>&1
echo "memcheck rc $? after $((SECONDS-s)) s"
tar -cJf $OUT/run159.tar.xz -C /tmp/o .

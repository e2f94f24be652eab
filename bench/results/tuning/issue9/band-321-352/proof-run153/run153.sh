#!/usr/bin/env bash
# GPU proof of the 176-token timing at 321-352 tokens: unit, API, the GPU suite, first-call, the
# example; memcheck on the gated path tests; the torch suite.
set -u
mkdir -p /tmp/b /tmp/o && tar -xJf build-devbin/bin153.tar.xz -C /tmp/b
nvidia-smi --query-gpu=name,driver_version,power.limit --format=csv > /tmp/o/gpu.txt
s=$SECONDS
mkdir -p /tmp/bin && cp /tmp/b/new/epifuse_* /tmp/b/new/custom_epilogue /tmp/bin/
GPU_TESTS_TIMEOUT=330 ./scripts/gpu_validation.sh /tmp/bin /tmp/o/proof tests > /tmp/o/proof.txt 2>&1
echo "tests after $((SECONDS-s)) s"
timeout 120 compute-sanitizer --tool memcheck --error-exitcode 9 /tmp/bin/epifuse_gpu_tests \
  --gtest_filter='GatedPaths.*' > /tmp/o/memcheck.log 2>&1
echo "memcheck rc $? after $((SECONDS-s)) s"
mkdir -p /tmp/pyt && cp /tmp/b/new/libepifuse_torch.so /tmp/pyt/
EPIFUSE_TORCH_LIBRARY=/tmp/pyt/libepifuse_torch.so PYTHONPATH=python timeout 110 python3 -m pytest python/tests -q -p no:cacheprovider > /tmp/o/pytest.log 2>&1
echo "pytest rc $? after $((SECONDS-s)) s"
tar -cJf $OUT/run153.tar.xz -C /tmp/o .

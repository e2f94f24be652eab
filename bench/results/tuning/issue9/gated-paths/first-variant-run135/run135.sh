#!/usr/bin/env bash
# GPU proof of the gated path timing (new) and host cost A/B against ebaf4aa's library (old).
set -u
mkdir -p /tmp/b /tmp/o && tar -xJf build-devbin/bin135.tar.xz -C /tmp/b
nvidia-smi --query-gpu=name,driver_version,power.limit --format=csv > /tmp/o/gpu.txt
s=$SECONDS
mkdir -p /tmp/bin && cp /tmp/b/new/epifuse_* /tmp/b/new/custom_epilogue /tmp/b/new/epifuse-bench /tmp/bin/
GPU_TESTS_TIMEOUT=330 ./scripts/gpu_validation.sh /tmp/bin /tmp/o/proof tests > /tmp/o/proof.txt 2>&1
echo "tests after $((SECONDS-s)) s"
timeout 120 compute-sanitizer --tool memcheck --error-exitcode 9 /tmp/bin/epifuse_gpu_tests \
  --gtest_filter='*GatedPaths*:*Features*x640x16384*:*CallsThatRanBeforeAreCaptured*:*NarrowLongK*' > /tmp/o/memcheck.log 2>&1
echo "memcheck rc $? after $((SECONDS-s)) s"
mkdir -p /tmp/pyt/epifuse && cp /tmp/b/new/libepifuse_torch.so /tmp/pyt/
EPIFUSE_TORCH_LIBRARY=/tmp/pyt/libepifuse_torch.so PYTHONPATH=python timeout 150 python3 -m pytest python/tests -q -x -p no:cacheprovider > /tmp/o/pytest.log 2>&1
echo "pytest rc $? after $((SECONDS-s)) s"
timeout 60 ./scripts/host_cost_ab.sh /tmp/b/new/epifuse-bench /tmp/b/old/epifuse-bench /tmp/o/host 3 > /tmp/o/host.txt 2>&1
echo "host rc $? after $((SECONDS-s)) s"
tar -cJf $OUT/run135.tar.xz -C /tmp/o .

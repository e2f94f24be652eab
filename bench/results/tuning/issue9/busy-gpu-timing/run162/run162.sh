#!/usr/bin/env bash
# GPU proof of the busy-GPU timing and the seven tilings at 353-1023 tokens: unit, API, the GPU
# suite, first-call, the example; memcheck on the gated path tests; the torch suite; then checked
# random draws at 17-1023 tokens as dispatched (first launches logged).
set -u
mkdir -p /tmp/b /tmp/o && tar -xJf build-devbin/bin162.tar.xz -C /tmp/b
nvidia-smi --query-gpu=name,driver_version,power.limit --format=csv > /tmp/o/gpu.txt
s=$SECONDS
mkdir -p /tmp/bin && cp /tmp/b/new/* /tmp/bin/ && rm /tmp/bin/epifuse-timing-regime-probe
GPU_TESTS_TIMEOUT=300 ./scripts/gpu_validation.sh /tmp/bin /tmp/o/proof tests > /tmp/o/proof.txt 2>&1
echo "tests after $((SECONDS-s)) s"
timeout 90 compute-sanitizer --tool memcheck --error-exitcode 9 /tmp/bin/epifuse_gpu_tests \
  --gtest_filter='GatedPaths.*' > /tmp/o/memcheck.log 2>&1
echo "memcheck rc $? after $((SECONDS-s)) s"
EPIFUSE_TORCH_LIBRARY=/tmp/b/pyt/libepifuse_torch.so PYTHONPATH=python timeout 150 python3 -m pytest python/tests -q \
  -p no:cacheprovider > /tmp/o/pytest.log 2>&1
echo "pytest rc $? after $((SECONDS-s)) s"
[ $SECONDS -lt 480 ] && EPIFUSE_DELEGATED_TUNING=log timeout $((575 - SECONDS)) /tmp/bin/epifuse-bench gated --quick \
  --random 250 --seed 20261292 --m-min 17 --m-max 1023 --json /tmp/o/random-checked.json > /tmp/o/random-checked.log 2>&1
echo "random checked rc $? after $((SECONDS-s)) s"
tar -cJf $OUT/run162.tar.xz -C /tmp/o .

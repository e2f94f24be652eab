#!/usr/bin/env bash
# The final kept-launch build (53ace1a): the GPU proof (unit, API, the GPU suite, first-call, the
# example), memcheck on the new tests, the torch suite, then the host cost against a2efd17's bench
# (scripts/host_cost_ab.sh, rounds in turn on one core).
set -u
mkdir -p /tmp/b /tmp/o && rm -rf /tmp/o/* /tmp/b/* && tar -xJf build-devbin/bin170.tar.xz -C /tmp/b
nvidia-smi --query-gpu=name,driver_version,power.limit --format=csv > /tmp/o/gpu.txt
s=$SECONDS
rm -rf /tmp/bin && mkdir -p /tmp/bin && cp /tmp/b/new/* /tmp/bin/
export EPIFUSE_COMMIT=$(cat build-devbin/commit.txt)
GPU_TESTS_TIMEOUT=300 ./scripts/gpu_validation.sh /tmp/bin /tmp/o/proof tests > /tmp/o/proof.txt 2>&1
echo "tests after $((SECONDS-s)) s"
timeout 60 compute-sanitizer --tool memcheck --error-exitcode 9 /tmp/bin/epifuse_gpu_tests \
  --gtest_filter='KeptLaunches.*:DelegatedTuning.Warmed*:-*PendingError' > /tmp/o/memcheck.log 2>&1
echo "memcheck rc $? after $((SECONDS-s)) s"
timeout $((480 - SECONDS)) ./scripts/host_cost_ab.sh /tmp/bin/epifuse-bench /tmp/b/old/epifuse-bench /tmp/o/host-cost 3
echo "host cost rc $? after $((SECONDS-s)) s"
EPIFUSE_TORCH_LIBRARY=/tmp/b/pyt/libepifuse_torch.so PYTHONPATH=python timeout $((590 - SECONDS)) python3 -m pytest \
  python/tests -q -p no:cacheprovider > /tmp/o/pytest.log 2>&1
echo "pytest rc $? after $((SECONDS-s)) s"
tar -cJf $OUT/run170.tar.xz -C /tmp/o .

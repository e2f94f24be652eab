#!/usr/bin/env bash
# Kept launches (src/api/kept_launches.hpp): the GPU proof (unit, API, the GPU suite, first-call,
# the example), memcheck on the new tests, then the host cost of the new build against a2efd17's
# bench (scripts/host_cost_ab.sh, rounds in turn on one core).
set -u
mkdir -p /tmp/b /tmp/o && rm -rf /tmp/o/* /tmp/b/* && tar -xJf build-devbin/bin166.tar.xz -C /tmp/b
nvidia-smi --query-gpu=name,driver_version,power.limit --format=csv > /tmp/o/gpu.txt
lscpu | grep -E "Model name|^CPU\(s\)" > /tmp/o/cpu.txt
s=$SECONDS
rm -rf /tmp/bin && mkdir -p /tmp/bin && cp /tmp/b/new/* /tmp/bin/
export EPIFUSE_COMMIT=$(cat build-devbin/commit.txt)
GPU_TESTS_TIMEOUT=300 ./scripts/gpu_validation.sh /tmp/bin /tmp/o/proof tests > /tmp/o/proof.txt 2>&1
echo "tests after $((SECONDS-s)) s"
timeout 100 compute-sanitizer --tool memcheck --error-exitcode 9 /tmp/bin/epifuse_gpu_tests \
  --gtest_filter='KeptLaunches.*:DelegatedTuning.Warmed*' > /tmp/o/memcheck.log 2>&1
echo "memcheck rc $? after $((SECONDS-s)) s"
timeout $((570 - SECONDS)) ./scripts/host_cost_ab.sh /tmp/bin/epifuse-bench /tmp/b/old/epifuse-bench /tmp/o/host-cost 3
echo "host cost rc $? after $((SECONDS-s)) s"
tar -cJf $OUT/run166.tar.xz -C /tmp/o .

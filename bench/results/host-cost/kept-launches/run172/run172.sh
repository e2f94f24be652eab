#!/usr/bin/env bash
# After the review (keys met once in two-way sets, the conditions reordered, the log): the kept-launch,
# gated-path, stream, delegated-tuning and reliability tests, memcheck on the kept-launch tests, one
# host-cost run.
set -u
mkdir -p /tmp/b /tmp/o && rm -rf /tmp/o/* /tmp/b/* && tar -xJf build-devbin/bin172.tar.xz -C /tmp/b
nvidia-smi --query-gpu=name,driver_version --format=csv > /tmp/o/gpu.txt
s=$SECONDS
export EPIFUSE_COMMIT=$(cat build-devbin/commit.txt)
timeout 90 /tmp/b/new/epifuse_gpu_tests \
  --gtest_filter='KeptLaunches.*:GatedPaths.*:Streams.*:DelegatedTuning.*:Reliability.*' > /tmp/o/tests.log 2>&1
echo "tests rc $? after $((SECONDS-s)) s"; tail -3 /tmp/o/tests.log
timeout 40 compute-sanitizer --tool memcheck --error-exitcode 9 /tmp/b/new/epifuse_gpu_tests \
  --gtest_filter='KeptLaunches.*:-*PendingError' > /tmp/o/memcheck.log 2>&1
echo "memcheck rc $? after $((SECONDS-s)) s"; tail -1 /tmp/o/memcheck.log
[ $SECONDS -lt 130 ] && taskset -c 3 timeout 30 /tmp/b/new/epifuse-bench host-cost --calls 10000 \
  --json /tmp/o/host-cost.json > /tmp/o/host-cost.log 2>&1
echo "host cost rc $? after $((SECONDS-s)) s"
cp /tmp/o/* $OUT/

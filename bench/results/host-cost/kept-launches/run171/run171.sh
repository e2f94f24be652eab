#!/usr/bin/env bash
# The refactored graph-capture tests (one helper for gated replays): Streams.* and KeptLaunches.*.
set -u
mkdir -p /tmp/b /tmp/o && rm -rf /tmp/o/* /tmp/b/* && tar -xJf build-devbin/bin171.tar.xz -C /tmp/b
nvidia-smi --query-gpu=name,driver_version --format=csv > /tmp/o/gpu.txt
timeout 120 /tmp/b/new/epifuse_gpu_tests --gtest_filter='Streams.*:KeptLaunches.*:GatedPaths.*' > /tmp/o/tests.log 2>&1
echo "tests rc $?"
tail -3 /tmp/o/tests.log
cp /tmp/o/* $OUT/

#!/usr/bin/env bash
# 1413c43 (the 16-token tile at decode): the random suite's draws of at most 16 tokens (seed
# 20261240) on the new dispatch and on the old one (the same kernels, 460e15f's rules), then the
# unit tests, the gated GPU tests and memcheck on the new cases.
set -u
mkdir -p /tmp/b /tmp/o && tar -xJf build-devbin/bin147.tar.xz -C /tmp/b
nvidia-smi --query-gpu=name,driver_version,power.limit --format=csv > /tmp/o/gpu.txt
s=$SECONDS
C=$(cat build-devbin/commit.txt)
for v in new old; do
  EPIFUSE_COMMIT=$C timeout 150 /tmp/b/$v/epifuse-bench gated --quick --random 120 --seed 20261240 --m-max 16 \
    --graphs-up-to 256 --json /tmp/o/random-m16-$v.json > /tmp/o/random-m16-$v.log 2>&1
  echo "bench $v rc $? after $((SECONDS-s)) s"
done
/tmp/b/new/epifuse_unit_tests > /tmp/o/unit.log 2>&1; echo "unit rc $? after $((SECONDS-s)) s"
timeout 200 /tmp/b/new/epifuse_gpu_tests --gtest_filter='*Gated*' > /tmp/o/gpu-gated.log 2>&1
echo "gpu gated rc $? after $((SECONDS-s)) s"
timeout 100 compute-sanitizer --tool memcheck --error-exitcode 9 /tmp/b/new/epifuse_gpu_tests \
  --gtest_filter='*16x4232x2496*:*11x9472x1152*:*128x16x128*:*5x4232x2496*:*5x14848x2048*' > /tmp/o/memcheck.log 2>&1
echo "memcheck rc $? after $((SECONDS-s)) s"
tar -cJf $OUT/run147.tar.xz -C /tmp/o .

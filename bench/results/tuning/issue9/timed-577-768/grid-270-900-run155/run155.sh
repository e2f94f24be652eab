#!/usr/bin/env bash
# b504733's revised GatedPaths GPU tests (and memcheck on them), then the catalogue MLPs' full
# gated grid (every base token count) at 270-900 tokens, as dispatched at 3d7f9f2, against
# cuBLASLt + act·mul; the first launches' choices logged.
set -u
mkdir -p /tmp/b /tmp/o && tar -xJf build-devbin/bin155.tar.xz -C /tmp/b
nvidia-smi --query-gpu=name,driver_version,power.limit --format=csv > /tmp/o/gpu.txt
s=$SECONDS
/tmp/b/new/epifuse_gpu_tests --gtest_filter='GatedPaths.*' > /tmp/o/gated-paths-tests.log 2>&1
echo "GatedPaths tests rc $? after $((SECONDS-s)) s"
compute-sanitizer --tool memcheck --error-exitcode 9 /tmp/b/new/epifuse_gpu_tests --gtest_filter='GatedPaths.*' \
  > /tmp/o/gated-paths-memcheck.log 2>&1
echo "GatedPaths memcheck rc $? after $((SECONDS-s)) s"
g=0
for models in phi3-medium,qwen2.5-7b,llama3-8b,gemma2-9b llama3.2-1b,llama3.2-3b,llama3-70b,qwen2.5-72b; do
  g=$((g+1))
  EPIFUSE_DELEGATED_TUNING=log timeout 215 /tmp/b/new/epifuse-bench gated --quick --grid --grid-every 1 \
    --m-min 270 --m-max 900 --models $models --json /tmp/o/grid-270-900-$g.json > /tmp/o/grid-270-900-$g.log 2>&1
  echo "grid $g rc $? after $((SECONDS-s)) s"
done
tar -cJf $OUT/run155.tar.xz -C /tmp/o .

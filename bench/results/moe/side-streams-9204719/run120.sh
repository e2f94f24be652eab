#!/usr/bin/env bash
# Grouped launches at once on side streams (new) against 07a00d2 (old, in turn): the grouped, MoE
# and stream GPU tests and memcheck on the grouped cases (new), then epifuse-bench moe per model,
# old and new in turn, then the torch gate/up bench on the new library.
set -u
mkdir -p /tmp/b /tmp/o && tar -xJf build-devbin/bin120.tar.xz -C /tmp/b
pack() { tar -cJf $OUT/run120.tar.xz -C /tmp/o .; }
nvidia-smi --query-gpu=name,driver_version,power.limit --format=csv > /tmp/o/gpu.txt
cat /tmp/o/gpu.txt
export EPIFUSE_COMMIT=$(cat build-devbin/commit.txt)
s=$SECONDS
timeout 120 /tmp/b/new/epifuse_gpu_tests --gtest_filter='*Grouped*:*Moe*:*MoE*:Streams*' > /tmp/o/gpu-tests.log 2>&1
echo "gpu tests rc $? after $((SECONDS-s)) s"; tail -3 /tmp/o/gpu-tests.log; pack
s=$SECONDS
timeout 150 compute-sanitizer --tool memcheck --error-exitcode 9 /tmp/b/new/epifuse_gpu_tests --gtest_filter='*GroupedGated*:*GroupedGemm*' > /tmp/o/memcheck.log 2>&1
echo "memcheck rc $? after $((SECONDS-s)) s"; tail -3 /tmp/o/memcheck.log; pack
for m in qwen2-57b-a14b mixtral-8x7b deepseek-v3; do
  for v in old new; do
    s=$SECONDS
    timeout 60 /tmp/b/$v/epifuse-bench moe --quick --model $m --tokens 64,256,1024,4096 --json /tmp/o/bench-moe-$v-$m.json > /tmp/o/bench-moe-$v-$m.log 2>&1
    echo "bench $v $m rc $? after $((SECONDS-s)) s"
  done
  pack
done
s=$SECONDS
PYTHONPATH=python:bench/python EPIFUSE_TORCH_LIBRARY=/tmp/b/new/libepifuse_torch.so timeout 150 python bench/python/torch_bench.py moe --json /tmp/o/torch-moe-new.json > /tmp/o/torch-moe-new.log 2>&1
echo "torch moe rc $? after $((SECONDS-s)) s"; tail -3 /tmp/o/torch-moe-new.log
pack

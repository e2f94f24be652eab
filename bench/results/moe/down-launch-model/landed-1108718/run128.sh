#!/usr/bin/env bash
# The grouped GEMM's launch model with its sums folded into the setup kernel's one pass over the experts
# (meant to cut what bbee218's second pass was thought to cost): the grouped, MoE and stream GPU tests, memcheck on the GEMM
# calls that take one launch, then the down GEMM probe in turn, old and new binaries, as run126.
set -u
mkdir -p /tmp/b /tmp/o && tar -xJf build-devbin/bin128.tar.xz -C /tmp/b
pack() { tar -cJf $OUT/run128.tar.xz -C /tmp/o .; }
nvidia-smi --query-gpu=name,driver_version,power.limit --format=csv > /tmp/o/gpu.txt
cat /tmp/o/gpu.txt
s=$SECONDS
timeout 150 /tmp/b/new/epifuse_gpu_tests --gtest_filter='*Grouped*:*Moe*:*MoE*:Streams*' > /tmp/o/gpu-tests.log 2>&1
echo "gpu tests rc $? after $((SECONDS-s)) s"; tail -3 /tmp/o/gpu-tests.log; pack
s=$SECONDS
timeout 90 compute-sanitizer --tool memcheck --error-exitcode 9 /tmp/b/new/epifuse_gpu_tests --gtest_filter='*GroupedGemmTest*E3_T512_N512*:*GroupedGemmTest*E8_T512_N512*:*GroupedGemmTest*E3_T700*:*GroupedGemmTest*/E8_T1167_N1000_K520' > /tmp/o/memcheck.log 2>&1
echo "memcheck rc $? after $((SECONDS-s)) s"; tail -3 /tmp/o/memcheck.log; pack
probe() {  # build, label, tokens, models
  s=$SECONDS
  timeout 120 /tmp/b/$1/epifuse-grouped-probe --down --rows-first --tokens $3 ${@:4} > /tmp/o/probe-down-$2-$1.log 2>&1
  echo "probe $2 $1 rc $? after $((SECONDS-s)) s"; pack
}
for b in old new; do probe $b fit 256,1024,4096 deepseek-v3 qwen2-57b mixtral; done
for b in old new; do probe $b fresh-tokens 128,512,2048 deepseek-v3 qwen2-57b mixtral; done
for b in old new; do probe $b other-models 256,1024,4096 qwen3-30b-a3b olmoe-1b-7b gpt-oss-20b mixtral-8x22b dbrx llama4-scout; done

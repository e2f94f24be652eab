#!/usr/bin/env bash
# The grouped gate/up kernels forced with the persistent scheduler's tile swizzle (2, 4, 8) beside
# the dispatched call, at 4096 and 16384 tokens: does a swizzle help few huge experts (DeepSeek-V3
# hot 16384 runs 0.996x torch._grouped_mm + act.mul)?
set -u
mkdir -p /tmp/b /tmp/o && tar -xJf build-devbin/bin122.tar.xz -C /tmp/b
pack() { tar -cJf $OUT/run122.tar.xz -C /tmp/o .; }
nvidia-smi --query-gpu=name,driver_version,power.limit --format=csv > /tmp/o/gpu.txt
for m in deepseek-v3 mixtral qwen2-57b; do
  s=$SECONDS
  timeout 170 /tmp/b/new/epifuse-grouped-probe --rows-first --swizzles 2,4,8 --tokens 4096,16384 $m > /tmp/o/probe-swizzles-$m.log 2>&1
  echo "probe $m rc $? after $((SECONDS-s)) s"; pack
done

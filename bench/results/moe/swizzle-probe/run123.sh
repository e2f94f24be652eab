#!/usr/bin/env bash
# Hot routing only (every token on the same k experts), 4096 and 16384 tokens: the unswapped
# 128x256 1x2 grouped kernel forced with tile swizzles 1, 2, 4, 8 beside the dispatched call and
# the dense loop.
set -u
mkdir -p /tmp/b /tmp/o && tar -xJf build-devbin/bin123.tar.xz -C /tmp/b
pack() { tar -cJf $OUT/run123.tar.xz -C /tmp/o .; }
nvidia-smi --query-gpu=name,driver_version,power.limit --format=csv > /tmp/o/gpu.txt
for m in deepseek-v3 mixtral qwen2-57b; do
  s=$SECONDS
  timeout 100 /tmp/b/new/epifuse-grouped-probe --rows-first --routing hot --forced 128x256 --swizzles 2,4,8 --tokens 4096,16384 $m > /tmp/o/probe-hot-swizzles-$m.log 2>&1
  echo "probe $m rc $? after $((SECONDS-s)) s"; pack
done

#!/usr/bin/env bash
# The MoE layer against the torch path (torch_bench.py moe_layer, 1-4096 tokens, three models and
# routings), the new build only (device time), then its 16384-token layer.
set -u
mkdir -p /tmp/b /tmp/o && tar -xJf build-devbin/bin128.tar.xz -C /tmp/b
pack() { tar -cJf $OUT/run129.tar.xz -C /tmp/o .; }
nvidia-smi --query-gpu=name,driver_version,power.limit --format=csv > /tmp/o/gpu.txt
py() { EPIFUSE_COMMIT=$([ $1 = old ] && echo 89185bf || cat build-devbin/commit.txt) PYTHONPATH=python:bench/python EPIFUSE_TORCH_LIBRARY=/tmp/b/$1/libepifuse_torch.so timeout $2 python bench/python/torch_bench.py "${@:3}"; }
for b in new; do
  s=$SECONDS; py $b 200 moe_layer --json /tmp/o/torch-moe-layer-$b.json > /tmp/o/torch-moe-layer-$b.log 2>&1
  echo "torch moe_layer $b rc $? after $((SECONDS-s)) s"; pack
done
s=$SECONDS; py new 150 moe_layer --moe-tokens 16384 --json /tmp/o/torch-moe-layer-16384-new.json > /tmp/o/torch-moe-layer-16384-new.log 2>&1
echo "torch moe_layer 16384 new rc $? after $((SECONDS-s)) s"; pack

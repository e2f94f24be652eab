#!/usr/bin/env bash
# The MoE layer against the torch path, the old and new builds alternately (ABAB), then the old
# build's 16384-token layer (run129 has the new one's).
set -u
mkdir -p /tmp/b /tmp/o && tar -xJf build-devbin/bin128.tar.xz -C /tmp/b
pack() { tar -cJf $OUT/run130.tar.xz -C /tmp/o .; }
nvidia-smi --query-gpu=name,driver_version,power.limit --format=csv > /tmp/o/gpu.txt
py() { EPIFUSE_COMMIT=$([ $1 = old ] && echo 89185bf || cat build-devbin/commit.txt) PYTHONPATH=python:bench/python EPIFUSE_TORCH_LIBRARY=/tmp/b/$1/libepifuse_torch.so timeout $2 python bench/python/torch_bench.py "${@:3}"; }
for r in 1 2; do for b in old new; do
  s=$SECONDS; py $b 60 moe_layer --json /tmp/o/torch-moe-layer-$b-$r.json > /tmp/o/torch-moe-layer-$b-$r.log 2>&1
  echo "torch moe_layer $b $r rc $? after $((SECONDS-s)) s"; pack
done; done
s=$SECONDS; py old 60 moe_layer --moe-tokens 16384 --json /tmp/o/torch-moe-layer-16384-old.json > /tmp/o/torch-moe-layer-16384-old.log 2>&1
echo "torch moe_layer 16384 old rc $? after $((SECONDS-s)) s"; pack

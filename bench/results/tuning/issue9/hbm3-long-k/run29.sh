#!/bin/bash
# Device call (H100): catalogue MLPs with K >= 5120 (Llama-3 70B, Qwen2.5-72B, Phi-3 medium,
# Llama-3 405B) at 1025-16384 tokens as dispatched, a2ab947 ("new") against d328963 ("old"), in turn.
mkdir -p /tmp/b && tar -xJf build-devbin/bin28.tar.xz -C /tmp/b
mkdir -p $OUT/r
nvidia-smi --query-gpu=name,driver_version,power.limit --format=csv > $OUT/r/gpu.csv
start=$SECONDS
args=""
for nk in 28672x8192 29568x8192 17920x5120; do
  for m in 1025 1500 2048 3001 4096 6000 8192 12000 16384; do args="$args --shape ${m}x$nk"; done
done
for m in 1025 2048 4096 8192; do args="$args --shape ${m}x53248x16384"; done
for b in new old; do
  timeout 150 /tmp/b/$b/epifuse-bench gated $args --quick --json $OUT/r/fresh-$b-0.json > $OUT/r/fresh-$b-0.log 2>&1
  echo "$b exit $? $((SECONDS-start)) s"
done
cd $OUT && tar -cJf r.tar.xz r && rm -rf r

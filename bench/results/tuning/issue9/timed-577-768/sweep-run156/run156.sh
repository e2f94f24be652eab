#!/usr/bin/env bash
# The gated grid's losses at 273-812 tokens (run155): every swapped tiling that can take 257-1023
# tokens, and the unswapped 128x128 / 128x256, forced beside the dispatched call and cuBLASLt +
# act·mul, on Qwen2.5-7B, Llama-3 8B and Llama-3.2 1B (checks off: a tuning probe of kernels the
# GPU suite checks).
set -u
mkdir -p /tmp/b /tmp/o && tar -xJf build-devbin/bin155.tar.xz -C /tmp/b
nvidia-smi --query-gpu=name,driver_version,power.limit --format=csv > /tmp/o/gpu.txt
s=$SECONDS
S=""
for m in 273 406 645 300 345 513 696 812; do
  for nk in 18944x3584 14336x4096 8192x2048; do S="$S --shape ${m}x$nk"; done
done
K=bf16_bf16_swap_pingpong_128x96x64_c1x2,bf16_bf16_swap_pingpong_128x112,bf16_bf16_swap_pingpong_128x128x64_c1x2
K=$K,bf16_bf16_swap_coop_128x128,bf16_bf16_swap_coop_128x144,bf16_bf16_swap_coop_128x160,bf16_bf16_swap_pingpong_128x160
K=$K,bf16_bf16_swap_coop_128x176,bf16_bf16_swap_coop_128x208,bf16_bf16_swap_coop_128x224,bf16_bf16_pingpong_128x128x64_c1x2
K=$K,bf16_bf16_coop_128x256
timeout 500 /tmp/b/new/epifuse-bench gated --quick --no-check --sweep --sweep-only $K $S \
  --json /tmp/o/sweep-273-812.json > /tmp/o/sweep-273-812.log 2>&1
echo "sweep rc $? after $((SECONDS-s)) s"
tar -cJf $OUT/run156.tar.xz -C /tmp/o .

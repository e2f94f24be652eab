#!/usr/bin/env bash
# In one process each, the dispatched call against the rules' kernels forced (--sweep-only), so
# that a timed choice is compared with the rules' pick without the spread between processes:
# wide: the first build (four tilings timed at every point of 353-1023 tokens); final: the
# committed rule (577-768 tokens where the rules pick the 128-token pairs). The catalogue MLPs'
# full grid at 353-1023 (wide) and 577-768 (final), fresh random draws at 577-768 (final), all
# against cuBLASLt + act·mul; then final checked at 577-768 on four MLPs.
set -u
mkdir -p /tmp/b /tmp/o && tar -xJf build-devbin/bin158.tar.xz -C /tmp/b
nvidia-smi --query-gpu=name,driver_version,power.limit --format=csv > /tmp/o/gpu.txt
s=$SECONDS
RULES=bf16_bf16_swap_pingpong_128x128x64_c1x2,bf16_bf16_swap_coop_128x224x64_c2x1,bf16_bf16_swap_pingpong_128x160
RULES=$RULES,bf16_bf16_pingpong_128x128x64_c1x2,bf16_bf16_swap_pingpong_128x96x64_c1x2,bf16_bf16_swap_coop_128x176
M=qwen2.5-7b,llama3-8b,phi3-medium,llama3.2-1b,llama3.2-3b,gemma2-9b,llama3-70b,qwen2.5-72b
EPIFUSE_DELEGATED_TUNING=log timeout 200 /tmp/b/wide/epifuse-bench gated --quick --no-check --grid --grid-every 1 \
  --m-min 353 --m-max 1023 --models $M --sweep --sweep-only $RULES --json /tmp/o/wide-grid.json > /tmp/o/wide-grid.log 2>&1
echo "wide grid rc $? after $((SECONDS-s)) s"
EPIFUSE_DELEGATED_TUNING=log timeout 100 /tmp/b/final/epifuse-bench gated --quick --no-check --grid --grid-every 1 \
  --m-min 577 --m-max 768 --models $M --sweep --sweep-only bf16_bf16_swap_pingpong_128x128x64_c1x2 \
  --json /tmp/o/final-grid.json > /tmp/o/final-grid.log 2>&1
echo "final grid rc $? after $((SECONDS-s)) s"
EPIFUSE_DELEGATED_TUNING=log timeout 100 /tmp/b/final/epifuse-bench gated --quick --no-check --random 3000 --seed 20261243 \
  --m-min 577 --m-max 768 --sweep --sweep-only bf16_bf16_swap_pingpong_128x128x64_c1x2 \
  --json /tmp/o/final-random.json > /tmp/o/final-random.log 2>&1
echo "final random rc $? after $((SECONDS-s)) s"
[ $SECONDS -lt 420 ] && EPIFUSE_DELEGATED_TUNING=log timeout $((540 - SECONDS)) /tmp/b/final/epifuse-bench gated --quick \
  --grid --grid-every 1 --m-min 577 --m-max 768 --models qwen2.5-7b,llama3-8b,llama3.2-1b,gemma2-9b \
  --json /tmp/o/final-checked.json > /tmp/o/final-checked.log 2>&1
echo "final checked rc $? after $((SECONDS-s)) s"
tar -cJf $OUT/run158.tar.xz -C /tmp/o .

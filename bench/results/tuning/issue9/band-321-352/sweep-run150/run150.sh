#!/usr/bin/env bash
# 321-336 tokens (three 112-token tiles: 336 rows, where the 96-token pair and the 128-row tiles
# compute 384): the kernels that can take the band, forced, beside the dispatched call and
# cuBLASLt + act·mul, on nine catalogue MLPs and two random draws.
set -u
mkdir -p /tmp/b /tmp/o && tar -xJf build-devbin/bin150.tar.xz -C /tmp/b
nvidia-smi --query-gpu=name,driver_version,power.limit --format=csv > /tmp/o/gpu.txt
s=$SECONDS
S=""
for nk in 14336x4096 28672x8192 18944x3584 8192x2048 8192x3072 29568x8192 14336x3584 17920x5120 32896x16640 44800x7360; do
  for m in 321 325 329 332 336; do S="$S --shape ${m}x$nk"; done
done
timeout 560 /tmp/b/new/epifuse-bench gated --quick --sweep \
  --sweep-only swap_pingpong_128x112,swap_coop_128x176,swap_pingpong_128x96x64_c1x2,swap_pingpong_128x128x64_c1x2,bf16_pingpong_128x128x64_c1x2 $S \
  --json /tmp/o/band-321-336.json > /tmp/o/band-321-336.log 2>&1
echo "sweep rc $? after $((SECONDS-s)) s"
tar -cJf $OUT/run150.tar.xz -C /tmp/o .

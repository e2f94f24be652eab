#!/usr/bin/env bash
# 060420d on an H100: the gated grid's worst bands (594-598, 1500-1504, 3785 and 197-201 tokens)
# with the large-token kernels swept beside the dispatched call; then the five-model thinned grid
# as at 57fbe8b.
set -u
mkdir -p /tmp/b /tmp/o && tar -xJf build-devbin/bin91.tar.xz -C /tmp/b
pack() { tar -cJf $OUT/run92.tar.xz -C /tmp/o .; }
nvidia-smi --query-gpu=name,driver_version,power.limit --format=csv > /tmp/o/gpu.txt
cat /tmp/o/gpu.txt
s=$SECONDS
EPIFUSE_COMMIT=060420d timeout 220 /tmp/b/new/epifuse-bench gated --sweep --quick \
  --sweep-only coop_128x256 bf16_pingpong_128x128 swap_pingpong_128x128 128x160x64 128x208x64 128x224x64 \
  --shape 594x14336x4096 598x18944x3584 597x8192x3072 594x28672x8192 1500x14336x4096 1503x18944x3584 \
  3785x18944x3584 200x18944x3584 --json /tmp/o/sweep-bands.json > /tmp/o/sweep-bands.log 2>&1
echo "sweep rc $? after $((SECONDS-s)) s"
pack
EPIFUSE_COMMIT=060420d timeout $((570-SECONDS)) /tmp/b/new/epifuse-bench gated --quick --grid --grid-every 6 --m-max 4200 \
  --graphs-up-to 256 --models llama3.2-1b,llama3.2-3b,qwen2.5-72b,gemma2-9b,phi3-medium --json /tmp/o/gated-grid-five.json > /tmp/o/grid-five.log 2>&1
echo "grid five rc $? after $((SECONDS-s)) s"
pack

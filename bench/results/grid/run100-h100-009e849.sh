#!/usr/bin/env bash
# 009e849 on an H100: the thinned gated grid from 1025 tokens on all eight catalogue MLPs (the
# commands of the 060420d grids with --m-min 1025), after the two HBM3 rules for K of 2048-5119.
# Binaries of run98.
set -u
mkdir -p /tmp/b /tmp/o && tar -xJf build-devbin/bin98.tar.xz -C /tmp/b
pack() { tar -cJf $OUT/run100.tar.xz -C /tmp/o .; }
nvidia-smi --query-gpu=name,driver_version,power.limit --format=csv > /tmp/o/gpu.txt
cat /tmp/o/gpu.txt
s=$SECONDS
EPIFUSE_COMMIT=009e849 timeout 400 /tmp/b/new/epifuse-bench gated --quick --grid --grid-every 6 --m-min 1025 --m-max 4200 \
  --graphs-up-to 256 --models llama3-70b,llama3-8b,qwen2.5-7b,llama3.2-1b,llama3.2-3b,qwen2.5-72b,gemma2-9b,phi3-medium \
  --json /tmp/o/gated-grid-from-1025.json > /tmp/o/grid-from-1025.log 2>&1
echo "grid rc $? after $((SECONDS-s)) s"
pack

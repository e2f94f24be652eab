#!/usr/bin/env bash
# The catalogue MLPs' full grid at 270-1023 tokens as dispatched (no sweep rows before the
# dispatched call), checks off, first launches logged: the target's figure where the busy-GPU
# timing and the seven tilings act.
set -u
mkdir -p /tmp/b /tmp/o && tar -xJf build-devbin/bin162.tar.xz -C /tmp/b
nvidia-smi --query-gpu=name,driver_version,power.limit --format=csv > /tmp/o/gpu.txt
s=$SECONDS
M=qwen2.5-7b,llama3-8b,phi3-medium,llama3.2-1b,llama3.2-3b,gemma2-9b,llama3-70b,qwen2.5-72b
EPIFUSE_DELEGATED_TUNING=log timeout 490 /tmp/b/new/epifuse-bench gated --quick --no-check --grid --grid-every 1 \
  --m-min 270 --m-max 1023 --models $M --json /tmp/o/grid-270-1023.json > /tmp/o/grid-270-1023.log 2>&1
echo "grid rc $? after $((SECONDS-s)) s"
tar -cJf $OUT/run163.tar.xz -C /tmp/o .

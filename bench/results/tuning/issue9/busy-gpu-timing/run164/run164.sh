#!/usr/bin/env bash
# Where gated first launches time the fused kernel against the delegated path (17-352 tokens on
# the catalogue MLPs): 428b31c's library (old, no warm-up) and the busy-GPU timing (new), one
# process each, in turn, every second base token count, checks off, first launches logged.
set -u
mkdir -p /tmp/b /tmp/o && tar -xJf build-devbin/bin164.tar.xz -C /tmp/b
nvidia-smi --query-gpu=name,driver_version,power.limit --format=csv > /tmp/o/gpu.txt
s=$SECONDS
M=qwen2.5-7b,llama3-8b,phi3-medium,llama3.2-1b,llama3.2-3b,gemma2-9b,llama3-70b,qwen2.5-72b
for b in new old; do
  EPIFUSE_DELEGATED_TUNING=log timeout 170 /tmp/b/$b/epifuse-bench gated --quick --no-check --grid --grid-every 2 \
    --m-min 17 --m-max 352 --models $M --json /tmp/o/grid-17-352-$b.json > /tmp/o/grid-17-352-$b.log 2>&1
  echo "$b rc $? after $((SECONDS-s)) s"
done
tar -cJf $OUT/run164.tar.xz -C /tmp/o .

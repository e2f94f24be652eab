#!/usr/bin/env bash
# A/B (new, old, old, new): two 144-token tiles at 257-288 tokens past 3.4 waves, and short-K ties
# on the unswapped pingpong. new = the working tree (5af6ff5 + the rule), old = 5af6ff5. H200.
set -u
mkdir -p /tmp/b /tmp/o && tar -xJf build-devbin/bin47.tar.xz -C /tmp/b
nvidia-smi --query-gpu=name,driver_version,power.limit --format=csv > /tmp/o/gpu.txt
shapes=$(cat build-devbin/ab47-shapes.txt)
p=0
for v in new old old new; do
  p=$((p+1)); s=$SECONDS
  EPIFUSE_COMMIT=$v timeout 140 /tmp/b/$v/epifuse-bench gated --shape $shapes --json /tmp/o/ab-$v-$p.json > /tmp/o/ab-$v-$p.log 2>&1
  echo "$v pass $p rc $? $((SECONDS-s)) s"
done
tar -cJf $OUT/run47.tar.xz -C /tmp/o .

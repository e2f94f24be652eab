#!/usr/bin/env bash
# df82c3b against 5af6ff5 (new, old, old, new) on the 8 draws of seed 20261202 whose kernel it changes and Qwen2.5-72B at 270 and 288 tokens.
set -u
mkdir -p /tmp/b /tmp/o && tar -xJf build-devbin/bin48.tar.xz -C /tmp/b
nvidia-smi --query-gpu=name,driver_version,power.limit --format=csv > /tmp/o/gpu.txt
cat /tmp/o/gpu.txt
shapes=$(cat build-devbin/ab50-shapes.txt)
p=0
for v in new old old new; do
  p=$((p+1)); s=$SECONDS
  EPIFUSE_COMMIT=$([ $v = new ] && echo df82c3b || echo 5af6ff5) timeout 120 /tmp/b/$v/epifuse-bench gated --shape $shapes --json /tmp/o/ab-$v-$p.json > /tmp/o/ab-$v-$p.log 2>&1
  echo "$v pass $p rc $? $((SECONDS-s)) s"
done
tar -cJf $OUT/run50.tar.xz -C /tmp/o .

#!/usr/bin/env bash
# 321-352 tokens: the dispatched call (new: the first launch times the 112- and 176-token tilings
# beside the rules' pick; old: 8cc91e7's rules) against cuBLASLt + act·mul, the two builds in turn
# per pair of weights, on eight catalogue MLPs and two random draws.
set -u
mkdir -p /tmp/b /tmp/o && tar -xJf build-devbin/bin151.tar.xz -C /tmp/b
nvidia-smi --query-gpu=name,driver_version,power.limit --format=csv > /tmp/o/gpu.txt
s=$SECONDS
g=0
for pair in "14336x4096 28672x8192" "18944x3584 8192x2048" "8192x3072 29568x8192" "14336x3584 17920x5120" "32896x16640 44800x7360"; do
  g=$((g+1))
  S=""
  for nk in $pair; do
    for m in 321 326 331 336 344 352; do S="$S --shape ${m}x$nk"; done
  done
  for b in new old; do
    EPIFUSE_DELEGATED_TUNING=log timeout 55 /tmp/b/$b/epifuse-bench gated --quick $S \
      --json /tmp/o/band-$b-$g.json > /tmp/o/band-$b-$g.log 2>&1
    echo "$b $g rc $? after $((SECONDS-s)) s"
  done
done
tar -cJf $OUT/run151.tar.xz -C /tmp/o .

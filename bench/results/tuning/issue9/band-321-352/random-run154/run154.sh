#!/usr/bin/env bash
# Fresh random shapes at 321-352 tokens (seed 20261241: N, K multiples of 64 log-uniform in
# [256, 65536], weights of at most 4 GB, M uniform in 321-352): dd9b7ec against 8cc91e7, in turn,
# twice, against cuBLASLt + act·mul in each run.
set -u
mkdir -p /tmp/b /tmp/o && tar -xJf build-devbin/bin154.tar.xz -C /tmp/b
nvidia-smi --query-gpu=name,driver_version,power.limit --format=csv > /tmp/o/gpu.txt
s=$SECONDS
S=""
for shape in 324x384x576 348x320x832 328x7424x1792 338x9920x6016 350x13248x38464 332x18304x19136 350x320x448 \
  338x320x7232 327x8192x512 337x2624x1664 334x9856x17664 322x20288x448 347x1920x14784 329x704x4032 336x1792x320 \
  336x21120x41088 346x384x18688 333x960x19648 336x1152x7424 334x11520x43776 330x14720x15232 328x8640x48448 \
  325x9792x9280 348x10432x15616; do S="$S --shape $shape"; done
for pass in 1 2; do
  for b in new old; do
    EPIFUSE_DELEGATED_TUNING=log timeout 75 /tmp/b/$b/epifuse-bench gated --quick $S \
      --json /tmp/o/band-$b-$pass.json > /tmp/o/band-$b-$pass.log 2>&1
    echo "$b $pass rc $? after $((SECONDS-s)) s"
  done
done
tar -cJf $OUT/run154.tar.xz -C /tmp/o .

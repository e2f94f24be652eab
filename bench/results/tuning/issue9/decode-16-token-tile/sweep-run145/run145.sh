#!/usr/bin/env bash
# Decode: swapped tiles with a 256-element K step (cooperative 128x32x256, pingpong 64x32x256)
# against the 128x32x128 kernels and cuBLASLt + act·mul.
set -u
mkdir -p /tmp/b /tmp/o && tar -xJf build-devbin/bin145.tar.xz -C /tmp/b
nvidia-smi --query-gpu=name,driver_version,power.limit --format=csv > /tmp/o/gpu.txt
s=$SECONDS
S=""
for sh in 1x50688x1216 1x19712x2048 1x10944x4352 4x15168x2176 3x30016x384 6x8768x1792 7x4928x1920 \
  8x21760x2880 9x5696x5952 7x13376x6464 1x14336x4096 8x14336x4096 1x18944x3584 1x14336x3584 \
  1x8192x2048 1x17920x5120; do S="$S --shape $sh"; done
timeout 400 /tmp/b/new/epifuse-bench gated --quick --graphs --sweep --sweep-only 128x32x128_c1x1,x32x256 $S \
  --json /tmp/o/decode-sweep-k256.json > /tmp/o/decode-sweep-k256.log 2>&1
echo "sweep rc $? after $((SECONDS-s)) s"
tar -cJf $OUT/run145.tar.xz -C /tmp/o .

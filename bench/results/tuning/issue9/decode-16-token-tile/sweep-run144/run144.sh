#!/usr/bin/env bash
# Decode with a short K on wide weights: every swapped 128x32 / 64x32 kernel (cooperative, its
# stream-K twin and shares, the new pingpongs) and the warp-mma kernel, against cuBLASLt + act·mul.
set -u
mkdir -p /tmp/b /tmp/o && tar -xJf build-devbin/bin144.tar.xz -C /tmp/b
nvidia-smi --query-gpu=name,driver_version,power.limit --format=csv > /tmp/o/gpu.txt
s=$SECONDS
S=""
for sh in 1x50688x1216 2x39296x1216 2x23616x1152 1x19712x2048 1x10944x4352 4x15168x2176 2x49216x640 \
  8x25216x512 3x30016x384 6x8768x1792 7x4928x1920 8x21760x2880 15x33280x1792 9x5696x5952 7x13376x6464 \
  4x24832x4608 1x14336x4096 8x14336x4096 16x14336x4096 1x28672x8192 1x18944x3584 1x14336x3584 \
  1x8192x2048 1x8192x3072 1x17920x5120 1x29568x8192 12x8192x2048; do S="$S --shape $sh"; done
timeout 500 /tmp/b/new/epifuse-bench gated --quick --graphs --sweep --sweep-only 128x32x128,64x32x128,warpmma $S \
  --json /tmp/o/decode-sweep.json > /tmp/o/decode-sweep.log 2>&1
echo "sweep rc $? after $((SECONDS-s)) s"
tar -cJf $OUT/run144.tar.xz -C /tmp/o .

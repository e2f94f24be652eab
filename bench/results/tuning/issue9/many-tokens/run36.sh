#!/bin/bash
# Device call (H100): 55d45cc (new) against a6f9baf (old), ABBA, where the rules past 4096 tokens
# change an H100's kernel: the pingpong's worst draws of seed 20261128 (odd weight-tile counts),
# class draws of seeds 20261129-20261131.
mkdir -p /tmp/b && tar -xJf build-devbin/bin36.tar.xz -C /tmp/b
mkdir -p $OUT/r
nvidia-smi --query-gpu=name,driver_version,power.limit --format=csv > $OUT/r/gpu.csv
SH="--shape 11203x448x5952 --shape 15352x704x9664 --shape 10851x576x8832 --shape 4354x448x11136 --shape 4785x576x20928 --shape 15071x192x9792 --shape 9023x704x8192 --shape 5010x1088x2304 --shape 11685x448x3264 --shape 13525x576x4928 --shape 5481x960x38208 --shape 10322x704x43840 --shape 8871x512x57536 --shape 9185x1088x59776 --shape 14344x128x41792 --shape 5591x1408x50880 --shape 6030x1600x39680 --shape 4988x1152x35520 "
for p in new-1 old-1 old-2 new-2; do
  start=$SECONDS
  timeout 70 /tmp/b/${p%-*}/epifuse-bench gated $SH --quick --json $OUT/r/ab-$p.json > $OUT/r/ab-$p.log 2>&1
  echo "ab $p exit $? $((SECONDS-start)) s"
done
cd $OUT && tar -cJf r.tar.xz r && rm -rf r

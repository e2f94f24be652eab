#!/bin/bash
# Device call (H200): 152e71f (new) against a6f9baf (old), ABBA, at every gated call of 4097-16384
# tokens the new rules change among fresh random seed 20261130 and class draws (seed 20261129;
# odd weight-tile counts up to 25, and narrow weights with K >= 32768); then the whole fresh seed
# on the new build.
mkdir -p /tmp/b && tar -xJf build-devbin/bin34.tar.xz -C /tmp/b
mkdir -p $OUT/r
nvidia-smi --query-gpu=name,driver_version,power.limit --format=csv > $OUT/r/gpu.csv
SH="--shape 6196x960x1024 --shape 6763x448x30272 --shape 8037x448x7232 --shape 13525x576x4928 --shape 7383x192x2816 --shape 5363x448x1088 --shape 5010x1088x2304 --shape 8370x1216x15552 --shape 8951x1344x15424 --shape 9526x576x1024 --shape 10875x1088x1216 --shape 15071x192x9792 --shape 9023x704x8192 --shape 4340x1344x3392 --shape 5559x960x8128 --shape 14554x192x5824 --shape 11685x448x3264 --shape 11882x1472x54592 --shape 6030x1600x39680 --shape 11170x640x49344 --shape 4204x512x44800 --shape 10320x1472x46080 --shape 5481x960x38208 --shape 10322x704x43840 --shape 11361x1920x37824 --shape 14344x128x41792 --shape 5591x1408x50880 --shape 4309x1152x44992 --shape 12521x1216x49728 --shape 6167x448x42240 "
for p in new-1 old-1 old-2 new-2; do
  start=$SECONDS
  timeout 100 /tmp/b/${p%-*}/epifuse-bench gated $SH --quick --json $OUT/r/ab-$p.json > $OUT/r/ab-$p.log 2>&1
  echo "ab $p exit $? $((SECONDS-start)) s"
done
start=$SECONDS
timeout 170 /tmp/b/new/epifuse-bench gated --random 300 --seed 20261130 --m-min 4097 --quick --json $OUT/r/fresh-new.json > $OUT/r/fresh-new.log 2>&1
echo "fresh exit $? $((SECONDS-start)) s"
cd $OUT && tar -cJf r.tar.xz r && rm -rf r

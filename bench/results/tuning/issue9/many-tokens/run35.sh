#!/bin/bash
# Device call (H200): 55d45cc (new) against a6f9baf (old), ABBA, on fresh draws of the capped
# wave-model class (seed 20261131: 4097-16384 tokens, at most 32 weight tiles, K >= 32768, at most
# 10 waves of 128x128 tiles) and two draws past 10 waves; then the GPU suite of the new build.
mkdir -p /tmp/b && tar -xJf build-devbin/bin35.tar.xz -C /tmp/b
mkdir -p $OUT/r
nvidia-smi --query-gpu=name,driver_version,power.limit --format=csv > $OUT/r/gpu.csv
SH="--shape 8871x512x57536 --shape 8858x512x52288 --shape 7836x1088x39424 --shape 5332x896x35520 --shape 9583x960x37120 --shape 4644x896x37632 --shape 5093x960x35520 --shape 10808x512x54336 --shape 6260x1472x53440 --shape 4717x960x33600 --shape 6991x128x41856 --shape 9185x1088x59776 --shape 12521x1216x49728 --shape 11882x1472x54592 "
for p in new-1 old-1 old-2 new-2; do
  start=$SECONDS
  timeout 75 /tmp/b/${p%-*}/epifuse-bench gated $SH --quick --json $OUT/r/ab-$p.json > $OUT/r/ab-$p.log 2>&1
  echo "ab $p exit $? $((SECONDS-start)) s"
done
GPU_TESTS_TIMEOUT=280 timeout 300 scripts/gpu_validation.sh /tmp/b/new $OUT/r/v tests
echo "validation exit $?"
cd $OUT && tar -cJf r.tar.xz r && rm -rf r

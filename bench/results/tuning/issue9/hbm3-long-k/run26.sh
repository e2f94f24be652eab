#!/bin/bash
# Device call (H100): the GPU suite of 1c36cab (an H100 takes the cooperative 128x256 1x2 for long-K
# calls of more than 1024 tokens), then 40 fresh random shapes of that class (seed 20261127, drawn
# after the rule was fitted), 1c36cab ("new") against d328963 ("old"), in two halves each in turn.
mkdir -p /tmp/b && tar -xJf build-devbin/bin26.tar.xz -C /tmp/b
mkdir -p $OUT/r
nvidia-smi --query-gpu=name,driver_version,power.limit --format=csv > $OUT/r/gpu.csv
start=$SECONDS
GPU_TESTS_TIMEOUT=280 timeout 300 scripts/gpu_validation.sh /tmp/b/new $OUT/r/v tests > $OUT/r/validation.txt 2>&1
echo "validation exit $? $((SECONDS-start)) s"
tail -6 $OUT/r/validation.txt
mapfile -t all < build-devbin/hbm3-long-k-shapes.txt
for half in 0 1; do
  args=""
  for s in "${all[@]:$((half*20)):20}"; do args="$args --shape $s"; done
  for b in new old; do
    timeout 70 /tmp/b/$b/epifuse-bench gated $args --quick --json $OUT/r/fresh-$b-$half.json > $OUT/r/fresh-$b-$half.log 2>&1
    echo "$b $half exit $? $((SECONDS-start)) s"
  done
done
cd $OUT && tar -cJf r.tar.xz r && rm -rf r

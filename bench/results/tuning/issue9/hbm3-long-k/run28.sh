#!/bin/bash
# Device call (H100): the GPU suite of the H100 long-K rule as refined (weights of 32 MiB or more,
# padded little; along the tokens where their tiles outnumber the clusters twice), then 40 fresh
# random shapes where d328963 ran a pingpong 128x128 (seed 20261128), a2ab947 ("new") against d328963 ("old").
mkdir -p /tmp/b && tar -xJf build-devbin/bin28.tar.xz -C /tmp/b
mkdir -p $OUT/r
nvidia-smi --query-gpu=name,driver_version,power.limit --format=csv > $OUT/r/gpu.csv
start=$SECONDS
GPU_TESTS_TIMEOUT=280 timeout 300 scripts/gpu_validation.sh /tmp/b/new $OUT/r/v tests > $OUT/r/validation.txt 2>&1
echo "validation exit $? $((SECONDS-start)) s"
tail -6 $OUT/r/validation.txt
mapfile -t all < build-devbin/hbm3-long-k-fresh2.txt
for half in 0 1; do
  args=""
  for s in "${all[@]:$((half*20)):20}"; do args="$args --shape $s"; done
  for b in new old; do
    timeout 70 /tmp/b/$b/epifuse-bench gated $args --quick --json $OUT/r/fresh-$b-$half.json > $OUT/r/fresh-$b-$half.log 2>&1
    echo "$b $half exit $? $((SECONDS-start)) s"
  done
done
cd $OUT && tar -cJf r.tar.xz r && rm -rf r

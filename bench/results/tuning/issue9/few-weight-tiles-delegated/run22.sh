#!/bin/bash
# Device call: the gated random suite of seed 20261122 at 65-4096 tokens, 43da4ec ("new": padding
# only where it pays, few weight tiles delegated) and 3aceecc ("old"), in turn.
mkdir -p /tmp/b && tar -xJf build-devbin/bin22.tar.xz -C /tmp/b
mkdir -p $OUT/r
nvidia-smi --query-gpu=name,driver_version,power.limit --format=csv > $OUT/r/gpu.csv
start=$SECONDS
for b in new old; do
  timeout 275 /tmp/b/$b/epifuse-bench gated --random 240 --seed 20261122 --m-min 65 --m-max 4096 --quick --graphs-up-to 256 --json $OUT/r/random-m65-4096-$b.json > $OUT/r/random-m65-4096-$b.log 2>&1
  echo "$b exit $? $((SECONDS-start)) s"
done
cd $OUT && tar -cJf r.tar.xz r && rm -rf r

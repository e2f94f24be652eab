#!/bin/bash
# Device call (trial, not landed): every gated call of more than 64 tokens on a weight of at most
# 127 packed 128-row tiles delegated to cuBLASLt + act·mul, the own kernel forced beside it.
mkdir -p /tmp/b && tar -xJf build-devbin/bin19.tar.xz -C /tmp/b
mkdir -p $OUT/r
nvidia-smi --query-gpu=name,driver_version,power.limit --format=csv > $OUT/r/gpu.csv
B=/tmp/b/trial/epifuse-bench
start=$SECONDS
timeout 100 $B gated $(cat build-devbin/trial-graphs.txt) --graphs --quick --json $OUT/r/trial-graphs.json > $OUT/r/trial-graphs.log 2>&1
echo "graphs exit $? $((SECONDS-start)) s"
timeout 250 $B gated $(cat build-devbin/trial-nographs.txt) --quick --json $OUT/r/trial-nographs.json > $OUT/r/trial-nographs.log 2>&1
echo "nographs exit $? $((SECONDS-start)) s"
cd $OUT && tar -cJf r.tar.xz r && rm -rf r

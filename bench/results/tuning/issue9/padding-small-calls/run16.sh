#!/bin/bash
# Device call (experiment, not landed): the gated MLP with x padded (as dispatched at 3aceecc) and
# read in place (EPIFUSE_EXP_NO_PAD), same binary, passes alternating, on 87 shapes of 65-1152 tokens.
mkdir -p /tmp/b && tar -xJf build-devbin/bin16.tar.xz -C /tmp/b
mkdir -p $OUT/r
B=/tmp/b/exp/epifuse-bench
G=$(cat build-devbin/shapes-graphs.txt); NG=$(cat build-devbin/shapes-nographs.txt)
nvidia-smi --query-gpu=name,driver_version,power.limit --format=csv > $OUT/r/gpu.csv
start=$SECONDS
for pass in pad1 nopad1 nopad2 pad2; do
  if [[ $pass == nopad* ]]; then export EPIFUSE_EXP_NO_PAD=1; else unset EPIFUSE_EXP_NO_PAD; fi
  timeout 80 $B gated $G --graphs --quick --json $OUT/r/graphs-$pass.json > $OUT/r/graphs-$pass.log 2>&1
  echo "$pass graphs exit $? $((SECONDS-start)) s"
  timeout 80 $B gated $NG --quick --json $OUT/r/nographs-$pass.json > $OUT/r/nographs-$pass.log 2>&1
  echo "$pass nographs exit $? $((SECONDS-start)) s"
done
cd $OUT && tar -cJf r.tar.xz r && rm -rf r

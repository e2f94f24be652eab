#!/bin/bash
# Device call: 78579d8 (x padded only on calls of 20 GFLOP or more whose x is at most half the
# weight's rows) against 3aceecc, in turn, on catalogue MLPs at 65-96 tokens and random shapes
# the rule changes (and ten it does not); then the GPU suite of 78579d8.
mkdir -p /tmp/b && tar -xJf build-devbin/bin17.tar.xz -C /tmp/b
mkdir -p $OUT/r
nvidia-smi --query-gpu=name,driver_version,power.limit --format=csv > $OUT/r/gpu.csv
CAT=$(cat build-devbin/ab-catalogue.txt); G=$(cat build-devbin/ab-graphs.txt); NG=$(cat build-devbin/ab-nographs.txt)
start=$SECONDS
for b in new old; do
  B=/tmp/b/$b/epifuse-bench
  timeout 45 $B gated $CAT $G --graphs --quick --json $OUT/r/graphs-$b.json > $OUT/r/graphs-$b.log 2>&1
  echo "$b graphs exit $? $((SECONDS-start)) s"
  timeout 95 $B gated $NG --quick --json $OUT/r/nographs-$b.json > $OUT/r/nographs-$b.log 2>&1
  echo "$b nographs exit $? $((SECONDS-start)) s"
done
GPU_TESTS_TIMEOUT=300 timeout 320 scripts/gpu_validation.sh /tmp/b/new $OUT/r/v tests > $OUT/r/validation.txt 2>&1
echo "validation exit $? $((SECONDS-start)) s"
tail -12 $OUT/r/validation.txt
cd $OUT && tar -cJf r.tar.xz r && rm -rf r

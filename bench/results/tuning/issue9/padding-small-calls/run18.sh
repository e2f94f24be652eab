#!/bin/bash
# Device call: 78579d8 against 3aceecc, in turn: the rest of run17's CUDA-graph shapes, the gated
# random suite of seed 20261122 at 65-1152 tokens; memcheck over the padded / in-place test.
mkdir -p /tmp/b && tar -xJf build-devbin/bin17.tar.xz -C /tmp/b
mkdir -p $OUT/r
nvidia-smi --query-gpu=name,driver_version,power.limit --format=csv > $OUT/r/gpu.csv
CAT=$(cat build-devbin/ab-catalogue2.txt); G=$(cat build-devbin/ab-graphs.txt)
start=$SECONDS
for b in new old; do
  B=/tmp/b/$b/epifuse-bench
  timeout 60 $B gated $CAT $G --graphs --quick --json $OUT/r/graphs2-$b.json > $OUT/r/graphs2-$b.log 2>&1
  echo "$b graphs exit $? $((SECONDS-start)) s"
done
for b in new old; do
  timeout 130 /tmp/b/$b/epifuse-bench gated --random 240 --seed 20261122 --m-min 65 --m-max 1152 --quick --graphs-up-to 256 --json $OUT/r/random-m65-1152-$b.json > $OUT/r/random-m65-1152-$b.log 2>&1
  echo "$b random exit $? $((SECONDS-start)) s"
done
timeout 150 compute-sanitizer --tool memcheck --error-exitcode 9 /tmp/b/new/epifuse_gpu_tests --gtest_filter='*PaddedAndInPlaceTokenReadsAgree*' > $OUT/r/memcheck-padded.log 2>&1
echo "memcheck exit $? $((SECONDS-start)) s"
tail -4 $OUT/r/memcheck-padded.log
cd $OUT && tar -cJf r.tar.xz r && rm -rf r

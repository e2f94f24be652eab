#!/bin/bash
# Device call: 730503a (bf16 gated calls of 129-4096 tokens on at most 127 weight tiles with
# K >= 1792 delegated) on 40 fresh shapes of that class (each delegated call's fused kernel forced
# beside it), then its GPU suite and memcheck over the delegated gated tests.
mkdir -p /tmp/b && tar -xJf build-devbin/bin20.tar.xz -C /tmp/b
mkdir -p $OUT/r
nvidia-smi --query-gpu=name,driver_version,power.limit --format=csv > $OUT/r/gpu.csv
B=/tmp/b/new/epifuse-bench
start=$SECONDS
timeout 40 $B gated $(cat build-devbin/fresh-graphs.txt) --graphs --quick --json $OUT/r/fresh-graphs.json > $OUT/r/fresh-graphs.log 2>&1
echo "graphs exit $? $((SECONDS-start)) s"
timeout 130 $B gated $(cat build-devbin/fresh-nographs.txt) --quick --json $OUT/r/fresh-nographs.json > $OUT/r/fresh-nographs.log 2>&1
echo "nographs exit $? $((SECONDS-start)) s"
GPU_TESTS_TIMEOUT=300 timeout 320 scripts/gpu_validation.sh /tmp/b/new $OUT/r/v tests > $OUT/r/validation.txt 2>&1
echo "validation exit $? $((SECONDS-start)) s"
tail -8 $OUT/r/validation.txt
timeout 80 compute-sanitizer --tool memcheck --error-exitcode 9 /tmp/b/new/epifuse_gpu_tests --gtest_filter='*NarrowLongKCallsAreDelegated*:*DelegatedGatedCall*:*PaddedAndInPlaceTokenReadsAgree*' > $OUT/r/memcheck-gated.log 2>&1
echo "memcheck exit $? $((SECONDS-start)) s"
tail -3 $OUT/r/memcheck-gated.log
cd $OUT && tar -cJf r.tar.xz r && rm -rf r

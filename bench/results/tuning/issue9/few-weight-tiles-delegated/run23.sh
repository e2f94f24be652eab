#!/bin/bash
# Device call: the GPU suite of 9e5a18c (an H200 delegates few weight tiles only below 1024 tokens).
mkdir -p /tmp/b && tar -xJf build-devbin/bin23.tar.xz -C /tmp/b
mkdir -p $OUT/r
GPU_TESTS_TIMEOUT=300 timeout 320 scripts/gpu_validation.sh /tmp/b/new $OUT/r/v tests > $OUT/r/validation.txt 2>&1
echo "validation exit $?"
tail -8 $OUT/r/validation.txt
cd $OUT && tar -cJf r.tar.xz r && rm -rf r

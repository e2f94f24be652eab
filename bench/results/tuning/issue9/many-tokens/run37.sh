#!/bin/bash
# Device call (H200): the GPU suite of the final build.
mkdir -p /tmp/b && tar -xJf build-devbin/bin37.tar.xz -C /tmp/b
mkdir -p $OUT/r
nvidia-smi --query-gpu=name,driver_version,power.limit --format=csv > $OUT/r/gpu.csv
GPU_TESTS_TIMEOUT=230 timeout 250 scripts/gpu_validation.sh /tmp/b/new $OUT/r/v tests
echo "validation exit $?"
cd $OUT && tar -cJf r.tar.xz r && rm -rf r

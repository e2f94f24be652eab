#!/bin/bash
set -x
nvidia-smi --query-gpu=name,driver_version,power.limit --format=csv > $OUT/gpu.txt
./build-devbin/epifuse-warp-mma-probe > $OUT/probe.txt 2>&1
echo rc=$? >> $OUT/probe.txt

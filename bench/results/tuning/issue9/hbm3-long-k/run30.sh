#!/bin/bash
# Device call (H100): the GEMM's own bias + GELU kernels on long-K calls of many tokens, every
# bias + activation kernel forced with its launch knobs, against cuBLASLt's BIAS+GELU (data only).
mkdir -p /tmp/b && tar -xJf build-devbin/bin28.tar.xz -C /tmp/b
mkdir -p $OUT/r
nvidia-smi --query-gpu=name,driver_version,power.limit --format=csv > $OUT/r/gpu.csv
start=$SECONDS
args=""
for s in 4096x8192x28672 8192x8192x28672 3001x8192x29568 8192x5120x17920 4096x12992x28544 8192x28672x8192 4096x4096x4096; do
  args="$args --shape $s"
done
timeout 230 /tmp/b/new/epifuse-bench gemm $args --epilogues bias_gelu --sweep --sweep-knobs --sweep-only biasact --quick --json $OUT/r/gemm-bias-gelu-sweep.json > $OUT/r/gemm-bias-gelu-sweep.log 2>&1
echo "sweep exit $? $((SECONDS-start)) s"
cd $OUT && tar -cJf r.tar.xz r && rm -rf r

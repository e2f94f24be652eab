#!/usr/bin/env bash
# The kept launches' benchmark check: one host-cost run of the new build (where a CUTLASS kernel's
# launch goes), then the gated and the bias+GELU GEMM benches on a few shapes, new and a2efd17's
# build in turn (eager timing, interleaved with the baselines, every output checked).
set -u
mkdir -p /tmp/b /tmp/o && rm -rf /tmp/o/* /tmp/b/* && tar -xJf build-devbin/bin168.tar.xz -C /tmp/b
nvidia-smi --query-gpu=name,driver_version,power.limit --format=csv > /tmp/o/gpu.txt
s=$SECONDS
export EPIFUSE_COMMIT=$(cat build-devbin/commit.txt)
taskset -c 3 /tmp/b/new/epifuse-bench host-cost --calls 10000 --json /tmp/o/host-cost-parts.json > /tmp/o/host-cost-parts.log 2>&1
echo "host cost rc $? after $((SECONDS-s)) s"
shapes="--shape 1x14336x4096 --shape 5x1024x512 --shape 40x1500x1024 --shape 64x14336x4096 --shape 333x14336x4096 --shape 4096x14336x4096"
for build in new old; do
  timeout 150 /tmp/b/$build/epifuse-bench gated --quick $shapes --json /tmp/o/gated-$build.json > /tmp/o/gated-$build.log 2>&1
  echo "gated $build rc $? after $((SECONDS-s)) s"
  timeout 120 /tmp/b/$build/epifuse-bench gemm --quick --shape 1x4096x4096 --shape 5x4096x1024 --shape 1024x4096x4096 \
    --epilogues bias_gelu --json /tmp/o/gemm-$build.json > /tmp/o/gemm-$build.log 2>&1
  echo "gemm $build rc $? after $((SECONDS-s)) s"
done
tar -cJf $OUT/run168.tar.xz -C /tmp/o .

#!/usr/bin/env bash
# The gated bench on a few shapes, the kept-launch build and a2efd17's in turn, twice (eager
# timing, interleaved with the baselines, every output checked).
set -u
mkdir -p /tmp/b /tmp/o && rm -rf /tmp/o/* /tmp/b/* && tar -xJf build-devbin/bin168.tar.xz -C /tmp/b
nvidia-smi --query-gpu=name,driver_version,power.limit --format=csv > /tmp/o/gpu.txt
s=$SECONDS
export EPIFUSE_COMMIT=$(cat build-devbin/commit.txt)
shapes="--shape 1x14336x4096 --shape 5x1024x512 --shape 40x1504x1024 --shape 64x14336x4096 --shape 333x14336x4096 --shape 4096x14336x4096"
for round in 1 2; do
  for build in new old; do
    timeout 100 /tmp/b/$build/epifuse-bench gated --quick $shapes --json /tmp/o/gated-$build-$round.json \
      > /tmp/o/gated-$build-$round.log 2>&1
    echo "gated $build $round rc $? after $((SECONDS-s)) s"
  done
done
tar -cJf $OUT/run169.tar.xz -C /tmp/o .

#!/usr/bin/env bash
# Same-run A/B of 96c8e6a (new) against 3a405ce's library (old) at the random suite's three draws
# past 512 tokens that the weight-share room reaches, four catalogue grid points and one decode
# control; kept paths logged.
set -u
mkdir -p /tmp/b /tmp/o && tar -xJf build-devbin/bin142.tar.xz -C /tmp/b
nvidia-smi --query-gpu=name,driver_version,power.limit --format=csv > /tmp/o/gpu.txt
s=$SECONDS
C=$(cat build-devbin/commit.txt)
shapes="--shape 2146x5312x44672 --shape 2092x13632x37440 --shape 760x12288x29568 --shape 200x18944x3584 --shape 149x29568x8192 --shape 248x17920x5120 --shape 57x14336x3584 --shape 5x14336x4096"
for b in new old; do
  EPIFUSE_COMMIT=$([ $b = new ] && echo $C || echo 3a405ce) EPIFUSE_DELEGATED_TUNING=log timeout 120 /tmp/b/$b/epifuse-bench gated --quick --graphs $shapes --json /tmp/o/ab-$b.json > /tmp/o/ab-$b.log 2>&1
  echo "$b rc $? after $((SECONDS-s)) s"
done
tar -cJf $OUT/run142.tar.xz -C /tmp/o .

#!/usr/bin/env bash
# The timing-regime probe: forced gated tilings timed as a first launch times them (after the GPU
# idled, with 0-100 ms of untimed work first) and as a busy GPU runs them; SM clocks and power
# sampled every 50 ms beside it.
set -u
mkdir -p /tmp/b /tmp/o && tar -xJf build-devbin/bin160.tar.xz -C /tmp/b
nvidia-smi --query-gpu=name,driver_version,power.limit --format=csv > /tmp/o/gpu.txt
s=$SECONDS
nvidia-smi --query-gpu=timestamp,clocks.sm,power.draw,temperature.gpu --format=csv -lms 50 > /tmp/o/clocks.csv 2>&1 &
smi=$!
timeout 300 /tmp/b/epifuse-timing-regime-probe > /tmp/o/probe.log 2>&1
echo "probe rc $? after $((SECONDS-s)) s"
kill $smi
tar -cJf $OUT/run160.tar.xz -C /tmp/o .

#!/usr/bin/env bash
# Every compiled gated kernel on the worst draws of seed 20261202 and on wide weights at 257-300 tokens (5af6ff5, H200).
set -u
mkdir -p /tmp/b && tar -xJf build-devbin/bin44.tar.xz -C /tmp/b
nvidia-smi --query-gpu=name,driver_version,power.limit --format=csv > $OUT/gpu.txt
export EPIFUSE_COMMIT=5af6ff5
s=$SECONDS
timeout 560 /tmp/b/epifuse-bench gated --sweep --shape 262x32064x4480 264x45376x5056 382x11328x29760 462x10944x2112 396x1280x1280 \
  1414x10304x320 1492x14400x320 69x9920x6016 2426x960x9536 1046x1152x31360 270x28672x4096 300x14336x8192 258x53248x8192 285x18944x3584 \
  --json $OUT/gated-sweep-worst-seed20261202.json > $OUT/gated-sweep-worst-seed20261202.log 2>&1
echo "rc $? after $((SECONDS-s)) s"

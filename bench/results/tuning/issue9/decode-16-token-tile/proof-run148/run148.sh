#!/usr/bin/env bash
# GPU proof of 1413c43 (the 16-token tile at decode): the GPU suite, the catalogue grid's decode
# points (at most 16 tokens, thinned as the committed grids), pytest.
set -u
mkdir -p /tmp/b /tmp/o && tar -xJf build-devbin/bin148.tar.xz -C /tmp/b
nvidia-smi --query-gpu=name,driver_version,power.limit --format=csv > /tmp/o/gpu.txt
s=$SECONDS
C=$(cat build-devbin/commit.txt)
mkdir -p /tmp/bin && cp /tmp/b/new/epifuse_* /tmp/b/new/custom_epilogue /tmp/b/new/epifuse-bench /tmp/bin/
GPU_TESTS_TIMEOUT=330 ./scripts/gpu_validation.sh /tmp/bin /tmp/o/proof tests > /tmp/o/proof.txt 2>&1
echo "tests after $((SECONDS-s)) s"
EPIFUSE_COMMIT=$C timeout 110 /tmp/bin/epifuse-bench gated --quick --grid --grid-every 6 --m-max 16 --graphs-up-to 256 \
  --json /tmp/o/gated-grid-decode.json > /tmp/o/gated-grid-decode.log 2>&1
echo "grid rc $? after $((SECONDS-s)) s"
mkdir -p /tmp/pyt && cp /tmp/b/new/libepifuse_torch.so /tmp/pyt/
EPIFUSE_TORCH_LIBRARY=/tmp/pyt/libepifuse_torch.so PYTHONPATH=python timeout 100 python3 -m pytest python/tests -q -p no:cacheprovider > /tmp/o/pytest.log 2>&1
echo "pytest rc $? after $((SECONDS-s)) s"
tar -cJf $OUT/run148.tar.xz -C /tmp/o .

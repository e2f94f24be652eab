#!/usr/bin/env bash
# New (the first launch times the 112-, 176-, 224-token tiles and the 96-token pairs beside the
# rules' pick at 353-1023 tokens, in two passes of opposite order) against old (3d7f9f2), in turn:
# the eight catalogue MLPs' full grid at 353-1023 tokens and fresh random draws there, against
# cuBLASLt + act·mul (timing only); then the new build checked on Qwen2.5-7B's points.
set -u
mkdir -p /tmp/b /tmp/o && tar -xJf build-devbin/bin157.tar.xz -C /tmp/b
nvidia-smi --query-gpu=name,driver_version,power.limit --format=csv > /tmp/o/gpu.txt
s=$SECONDS
for model in qwen2.5-7b llama3-8b phi3-medium llama3.2-1b llama3.2-3b gemma2-9b llama3-70b qwen2.5-72b; do
  for b in new old; do
    [ $SECONDS -gt 400 ] && break 2
    EPIFUSE_DELEGATED_TUNING=log timeout 60 /tmp/b/$b/epifuse-bench gated --quick --no-check --grid --grid-every 1 \
      --m-min 353 --m-max 1023 --models $model --json /tmp/o/grid-$model-$b.json > /tmp/o/grid-$model-$b.log 2>&1
    echo "$model $b rc $? after $((SECONDS-s)) s"
  done
done
for b in new old; do
  EPIFUSE_DELEGATED_TUNING=log timeout 60 /tmp/b/$b/epifuse-bench gated --quick --no-check --random 400 --seed 20261242 \
    --m-min 353 --m-max 1023 --json /tmp/o/random-$b.json > /tmp/o/random-$b.log 2>&1
  echo "random $b rc $? after $((SECONDS-s)) s"
done
[ $SECONDS -lt 380 ] && EPIFUSE_DELEGATED_TUNING=log timeout $((530 - SECONDS)) /tmp/b/new/epifuse-bench gated --quick --grid --grid-every 1 \
  --m-min 353 --m-max 1023 --models qwen2.5-7b --json /tmp/o/checked-qwen2.5-7b-new.json > /tmp/o/checked-qwen2.5-7b-new.log 2>&1
echo "checked rc $? after $((SECONDS-s)) s"
tar -cJf $OUT/run157.tar.xz -C /tmp/o .

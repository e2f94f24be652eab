#!/usr/bin/env bash
# The busy-GPU timing (100 ms warm-up) with seven tilings timed at 353-1023 tokens, judged in one
# process: the dispatched call beside the kernels the rules pick in that range, forced
# (--sweep-only; each epifuse row names the rules' pick as rules_kernel), checks off. The
# catalogue MLPs' full grid at 353-1023 tokens, then fresh random draws there.
set -u
mkdir -p /tmp/b /tmp/o && tar -xJf build-devbin/bin161.tar.xz -C /tmp/b
nvidia-smi --query-gpu=name,driver_version,power.limit --format=csv > /tmp/o/gpu.txt
s=$SECONDS
P=bf16_bf16_
RULES=${P}swap_pingpong_128x128x64_c1x2,${P}swap_coop_128x224x64_c2x1,${P}swap_coop_128x224x64_c2x1_streamk
RULES=$RULES,${P}swap_pingpong_128x160x64_c2x1,${P}pingpong_128x128x64_c1x2,${P}swap_pingpong_128x96x64_c1x2
RULES=$RULES,${P}swap_coop_128x176x64_c2x1,${P}swap_pingpong_128x112x64_c2x1
half=1
for M in qwen2.5-7b,llama3-8b,phi3-medium,llama3.2-1b llama3.2-3b,gemma2-9b,llama3-70b,qwen2.5-72b; do
  EPIFUSE_DELEGATED_TUNING=log timeout $((half == 1 ? 170 : 420 - SECONDS)) /tmp/b/new/epifuse-bench gated --quick \
    --no-check --grid --grid-every 1 --m-min 353 --m-max 1023 --models $M --sweep --sweep-only $RULES \
    --json /tmp/o/grid-$half.json > /tmp/o/grid-$half.log 2>&1
  echo "grid $half rc $? after $((SECONDS-s)) s"
  half=2
done
EPIFUSE_DELEGATED_TUNING=log timeout $((570 - SECONDS)) /tmp/b/new/epifuse-bench gated --quick --no-check \
  --random 1500 --seed 20261291 --m-min 353 --m-max 1023 --sweep --sweep-only $RULES \
  --json /tmp/o/random.json > /tmp/o/random.log 2>&1
echo "random rc $? after $((SECONDS-s)) s"
tar -cJf $OUT/run161.tar.xz -C /tmp/o .

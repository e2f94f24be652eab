#!/usr/bin/env bash
# Runs the GPU proof of a build on a Hopper machine: unit, API and GPU tests (the first-call
# graph-capture tests in a process of their own), the example, the bench, and compute-sanitizer
# (memcheck, racecheck) over a subset of the GPU suite that runs every kernel. Logs and the bench
# JSON go to OUT_DIR. Meant for a machine that runs prebuilt binaries (BIN_DIR: the test, bench
# and example executables), from the repository root (the unit tests read bench/results); on a
# machine with the toolchain, scripts/test.sh and scripts/bench.sh do the same after building.
#   scripts/gpu_validation.sh BIN_DIR OUT_DIR [stage ...]    stages: tests bench gated accuracy sanitizer
# BENCH_ARGS / GATED_ARGS add epifuse-bench gemm / gated arguments (e.g. --sweep, --shape);
# ACCURACY_ARGS epifuse-bench gated-accuracy arguments (e.g. --inits 20).
set -uo pipefail
bin=$(cd "$1" && pwd)
out=$(mkdir -p "$2" && cd "$2" && pwd)
shift 2
stages=("$@")
[ ${#stages[@]} -eq 0 ] && stages=(tests bench)

run() {  # name timeout_s command...
  local name=$1 limit=$2
  shift 2
  echo "== $name: $*"
  local start=$SECONDS
  timeout "$limit" "$@" >"$out/$name.log" 2>&1
  local rc=$?
  echo "== $name: exit $rc after $((SECONDS - start)) s"
  return $rc
}

nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,clocks.mem,temperature.gpu,power.draw \
  --format=csv >"$out/gpu.csv" 2>&1
cat "$out/gpu.csv"
for exe in "$bin"/*; do
  missing=$(ldd "$exe" 2>/dev/null | grep "not found")
  [ -n "$missing" ] && echo "$(basename "$exe"): $missing"
done

for stage in "${stages[@]}"; do
  case $stage in
    tests)
      run unit_tests 120 "$bin/epifuse_unit_tests"
      tail -1 "$out/unit_tests.log"
      run api_tests 60 "$bin/epifuse_api_tests"
      tail -1 "$out/api_tests.log"
      export EPIFUSE_GPU_SUMMARY="$out/gpu-test-summary.txt"
      rm -f "$EPIFUSE_GPU_SUMMARY"
      run gpu_tests "${GPU_TESTS_TIMEOUT:-500}" "$bin/epifuse_gpu_tests" --gtest_filter='-*FirstCall*'
      run gpu_first_call_tests 120 "$bin/epifuse_gpu_tests" --gtest_filter='*FirstCall*'
      for log in gpu_tests gpu_first_call_tests; do
        grep -E "^\[(case|gated)\]" "$out/$log.log" | awk '{print $1, $NF}' | sort | uniq -c
        grep -E "^\[block\]" "$out/$log.log"
        grep -E "^\[  (PASSED|FAILED|SKIPPED) |tests? from .* ran" "$out/$log.log" | tail -5
        grep -E "^\[  FAILED  \]" "$out/$log.log" | head -20
      done
      cat "$EPIFUSE_GPU_SUMMARY"
      run example 60 "$bin/custom_epilogue" && tail -1 "$out/example.log"
      ;;
    bench)
      # shellcheck disable=SC2086
      run bench "${BENCH_TIMEOUT:-400}" "$bin/epifuse-bench" gemm --json "$out/gemm.json" ${BENCH_ARGS:-}
      sed -n '/^NVIDIA/,$p' "$out/bench.log" | grep -v " sweep "
      ;;
    gated)
      # shellcheck disable=SC2086
      run gated_bench "${BENCH_TIMEOUT:-500}" "$bin/epifuse-bench" gated --json "$out/gated.json" ${GATED_ARGS:-}
      grep -E "^\[gated\]" "$out/gated_bench.log" | grep -v "shape " | tail -400
      ;;
    accuracy)
      # shellcheck disable=SC2086
      run accuracy "${BENCH_TIMEOUT:-500}" "$bin/epifuse-bench" gated-accuracy --json "$out/gated-accuracy.json" ${ACCURACY_ARGS:-}
      grep -E "^\[accuracy\]" "$out/accuracy.log"
      ;;
    sanitizer)
      # Every compiled kernel (EveryKernel: each GEMM kernel; Features/*sm90_gated_mlp*: each gated
      # kernel forced), bad input, reductions, the empty-problem identities, streams and threads
      # (calls captured from kept descriptors, kept against fresh ones), the delegated gated path
      # (cuBLASLt + act·mul, also under graph capture), a 16-bit bias widened for epifuse's kernels
      # (off 16 bytes, too little workspace, full tree), each grouped kernel forced on ragged experts
      # (gated MLP and GEMM), experts on both sides of each grouped launch's rows, offsets out of
      # range, the MoE layer (its sort, gather and combine kernels; graph replays with new routings),
      # decode past one wave of swapped 128x32 tiles as dispatched (stream-K and whole tiles), and one
      # 128-token tile on the swapped 128x128 stream-K past one wave as dispatched, and the decode
      # GEMMs as dispatched (warp-mma and swapped 128x32, also in a CUDA graph), the grouped warp-mma
      # kernel as dispatched (also in a CUDA graph, and over 300 experts), the delegated bias +
      # activation GEMM (cuBLASLt's fp32 product + epifuse's kernel; a 16-bit bias, too little
      # workspace, a CUDA graph), the gated MLP over x padded and in place (its last token tile's
      # TMA boxes past x's end), a gated call's first launch timing its fused kernel against the
      # delegated path (also before a CUDA graph and inside one).
      # Racecheck: each kernel at one shape, the stream-K kernels also in their share-tail mode, the
      # warp-mma GEMMs' cluster shares of the K loop (one and two token tiles; two blocks per CTA of
      # 8 and of 4 warps), the grouped warp-mma kernel's passes.
      memcheck_tests=(
        '*EveryKernel*' '*Features*sm90_gated_mlp*' '*Behavior.BadInput*'
        '*BiasActivationOnManyTilesRunsThePingpongPair*' '*Behavior.Reductions*' '*EmptyProblems*'
        '*Streams.FourHost*' '*CallsThatRanBeforeAreCaptured*' '*KeptAndFreshDescriptors*'
        '*NarrowLongKCallsAreDelegated*' '*DelegatedGatedCall*' '*DelegatedTuning*'
        '*BiasOffSixteenBytesRunsOwnKernel*' '*WideningNeedsItsWorkspace*' '*FullTreeReadsTheWidenedBias*'
        '*GroupedGatedTest*E8_T434*' '*GroupedGatedTest*E8_T1167*' '*GroupedGatedTest*E15_T3985*'
        '*OffsetsOutOfRangeAreClamped*' '*GroupedGemmTest*E8_T434*' '*GroupedGemmTest*E8_T1167*'
        '*MoeMlpTest*' '*MoeRoutingTest*' '*CudaGraphFollowsTheRoutingOnTheDevice*' '*Features/*x9472x2048*'
        '*Features/*x9344x4*' '*DecodeRunsItsKernels*' '*bound2*' '*CudaGraphFollowsTheRoutingAtDecode*'
        '*GemmBiasActDelegation*' '*PaddedAndInPlaceTokenReadsAgree*' '*GatedPaths*'
      )
      filter=$(IFS=:; echo "${memcheck_tests[*]}")
      run memcheck 400 compute-sanitizer --tool memcheck --error-exitcode 9 "$bin/epifuse_gpu_tests" --gtest_filter="$filter"
      tail -3 "$out/memcheck.log"
      run racecheck 400 compute-sanitizer --tool racecheck --error-exitcode 9 "$bin/epifuse_gpu_tests" \
        --gtest_filter='*EveryKernel*/1x1000x520*:*EveryKernel*/7x1000x8200*:*EveryKernel*/15x1000x8200*:*EveryKernel*/45x1000x8200*:*EveryKernel*/15x1040x16384*:*EveryKernel*/13x17000x1024*:*Features*/1x1000x520*sm90_gated_mlp*:*share_tail*:*GroupedGatedTest*E8_T434*:*GroupedGemmTest*E8_T434*:*MoeMlpTest*T37*:*GroupedGatedTest*bound2*'
      tail -3 "$out/racecheck.log"
      ;;
  esac
done

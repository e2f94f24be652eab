#!/usr/bin/env bash
# Builds the comparator binary for tools/ex113/run_ex113.sh: CUTLASS's public example
# 113_hopper_gemm_activation_fusion/113_hopper_gemm_fused_gated_act.cu (Hopper GEMM with a fused
# gated activation, SiLU: out = up * silu(gate)), switched to bf16. The CUTLASS tree is the public
# release (github.com/NVIDIA/cutlass; written against 4.7.0, commit 7107b05535f8) and must already be
# on disk (a clone or release archive; it needs include/, tools/util/include/, examples/common/ and
# examples/113_hopper_gemm_activation_fusion/): this script downloads nothing. Nothing it reads or
# writes belongs in this repository; keep tree and binary under a git-ignored folder such as
# build-ex113/.
#   tools/ex113/build_ex113.sh CUTLASS_DIR OUT_BINARY
# The example hard-codes its types (fp8 by default, fp16 as the alternative; no bf16). A copy of
# it, next to OUT_BINARY (OUT_BINARY.src/), is edited before compiling; each edit must match the
# example's text exactly once, else the script stops:
#   IsFp8 = false; A, B, C (bias), D and the reference GEMM's intermediate: bfloat16_t;
#   Quantize = false (no per-tensor output scale); timings printed with 6 decimals (ms), not 3;
#   two extra lines: "ex113-cutlass: VERSION COMMIT12" and "ex113-config: ..." (mainloop stage
#   count, shared-memory sizes).
# Everything else is the example's: Pingpong 128x128x64 tile (the M extent counts gate and up
# rows), cluster 1x2x1, SiLU, fp32 accumulation and epilogue math, bias slot C (unused at beta=0).
# The commit printed by the binary comes from CUTLASS_COMMIT, else git in CUTLASS_DIR, else
# "unknown". NVCC (default: nvcc on PATH, else $CUDA_HOME/bin/nvcc): CUDA 12.x or 13.x. One nvcc
# job: about 1.5 min and 5.3 GB peak memory on 2 cores (CUDA 13.0).
set -euo pipefail

if [ $# -ne 2 ]; then
  echo "usage: $0 CUTLASS_DIR OUT_BINARY" >&2
  exit 2
fi
cutlass=$(cd "$1" && pwd)
out=$2
mkdir -p "$(dirname "$out")"
out=$(cd "$(dirname "$out")" && pwd)/$(basename "$out")

ex=$cutlass/examples/113_hopper_gemm_activation_fusion
src=$ex/113_hopper_gemm_fused_gated_act.cu
for f in "$src" "$cutlass/include/cutlass/version.h" "$cutlass/tools/util/include/cutlass/util/command_line.h" \
         "$cutlass/examples/common/helper.h"; do
  [ -f "$f" ] || { echo "error: $f not found (need a CUTLASS source tree with examples/ and tools/util/)" >&2; exit 1; }
done

nvcc=${NVCC:-$(command -v nvcc || echo "${CUDA_HOME:-/usr/local/cuda}/bin/nvcc")}
[ -x "$nvcc" ] || { echo "error: nvcc not found (set NVCC)" >&2; exit 1; }

version=$(awk '/#define CUTLASS_(MAJOR|MINOR|PATCH) /{v=v (v?".":"") $3} END{print v}' "$cutlass/include/cutlass/version.h")
commit=${CUTLASS_COMMIT:-unknown}
if [ -z "${CUTLASS_COMMIT:-}" ] && [ "$(git -C "$cutlass" rev-parse --show-toplevel 2>/dev/null)" = "$cutlass" ]; then
  commit=$(git -C "$cutlass" rev-parse HEAD)  # only when CUTLASS_DIR is itself a checkout's root
fi
echo "CUTLASS $version, commit $commit, at $cutlass"
"$nvcc" --version | tail -n 1

work=$out.src
mkdir -p "$work"
patched=$work/113_hopper_gemm_fused_gated_act_bf16.cu

python3 - "$src" "$patched" <<'PY'
import sys
src, dst = sys.argv[1], sys.argv[2]
text = open(src).read()
edits = [
    ("bool constexpr IsFp8         = true;", "bool constexpr IsFp8         = false;"),
    ("bool constexpr Quantize      = true;", "bool constexpr Quantize      = false;"),
    ("using         ElementA    = conditional_t<IsFp8, cutlass::float_e4m3_t, cutlass::half_t>;",
     "using         ElementA    = conditional_t<IsFp8, cutlass::float_e4m3_t, cutlass::bfloat16_t>;"),
    ("using         ElementB    = conditional_t<IsFp8, cutlass::float_e5m2_t, cutlass::half_t>;",
     "using         ElementB    = conditional_t<IsFp8, cutlass::float_e5m2_t, cutlass::bfloat16_t>;"),
    ("using         ElementC    = cutlass::half_t;", "using         ElementC    = cutlass::bfloat16_t;"),
    ("using         ElementD    = conditional_t<IsFp8, cutlass::float_e4m3_t, cutlass::half_t>;",
     "using         ElementD    = conditional_t<IsFp8, cutlass::float_e4m3_t, cutlass::bfloat16_t>;"),
    ("using ElementIntermediate = cutlass::half_t;", "using ElementIntermediate = cutlass::bfloat16_t;"),
    ('"%s,%.3f,%.0f\\n" : "%20s  %20.3f  %20.0f\\n"', '"%s,%.6f,%.1f\\n" : "%20s  %20.6f  %20.1f\\n"'),
    ('std::cout << "Options: Quantize = " << Quantize',
     'std::cout << "ex113-cutlass: " EX113_CUTLASS_ID << std::endl;\n'
     '  std::cout << "ex113-config: mainloop_stages=" << CollectiveMainloop::DispatchPolicy::Stages\n'
     '            << " epilogue_smem_bytes=" << sizeof(typename CollectiveEpilogue::SharedStorage)\n'
     '            << " kernel_smem_bytes=" << GemmKernel::SharedStorageSize << std::endl;\n'
     '  std::cout << "Options: Quantize = " << Quantize'),
]
for old, new in edits:
    n = text.count(old)
    if n != 1:
        sys.exit(f"error: expected exactly one match in {src} for: {old!r} (found {n}); "
                 "the example changed, review the edits in build_ex113.sh")
    text = text.replace(old, new)
open(dst, "w").write('#ifndef EX113_CUTLASS_ID\n#define EX113_CUTLASS_ID "unknown"\n#endif\n' + text)
PY

flags=(-std=c++17 -O3 -DNDEBUG -gencode "arch=compute_90a,code=sm_90a" --expt-relaxed-constexpr
       -ftemplate-backtrace-limit=0 -DCUTLASS_ENABLE_TENSOR_CORE_MMA=1 -t 1
       "-DEX113_CUTLASS_ID=\"$version ${commit:0:12}\""
       -I"$cutlass/include" -I"$cutlass/tools/util/include" -I"$cutlass/examples/common" -I"$ex")
echo "compiling $patched (one job; a few minutes)"
start=$(date +%s)
"$nvcc" "${flags[@]}" -o "$out" "$patched"
strip "$out"
echo "built $out ($(stat -c %s "$out") bytes, $(( $(date +%s) - start )) s)"

// The one tolerance table, with the reason for every value. Errors are measured against the fp64
// reference computed from the same bf16/fp16 inputs the GPU reads, so input quantization is not an
// error source here; what is left is the output's rounding and fp32 arithmetic.
#pragma once

#include <cmath>
#include <cstdint>

#include "epifuse/types.hpp"

namespace epifuse::testing {

// ---- epifuse's own kernels: one rounding -------------------------------------------------------
// A fused kernel keeps acc and every epilogue step in fp32 and rounds once, to D. Its output can
// differ from the once-rounded fp64 reference RN_D(ref) only where fp32 error moves a value across
// a rounding boundary, so it is judged against that reference's own error:
//   per element   |out − ref| ≤ kUlps · ulp_D(ref) + fp32_allowance(K) · (|ref| + rms(ref))
//   relative L2   ‖out − ref‖ ≤ kL2Factor · ‖RN_D(ref) − ref‖ + fp32_l2_allowance(K) · ‖ref‖
// What this catches, and the unit test accuracy_rule_test.cpp shows it on emulated outputs: a
// truncating cast doubles the L2 error (uniform in [0, 1) ulp instead of [−½, ½]) with bf16 or
// fp16 output; with fp32 output, where the allowance is a few fp32 ulps, a wrong activation variant
// (GELU-erf for GELU-tanh: up to 4.7e-4), a 0.1 % error in σ, or an accumulator rounded to bf16
// before the epilogue (2^-9 relative) is hundreds of allowances off. fp32-output twins of every
// activation and epilogue feature exist for that reason (tests/gpu/gemm_epilogue_test.cpp).

// One rounding is at most ½ ulp; ¾ ulp more lets fp32 error cross one rounding boundary, and the
// reference's ulp be the binade below the output's.
constexpr double kUlps = 1.25;
// The output's own rounding dominates an L2 error made only of it; 1.25× leaves room for the rare
// boundary crossings above, and a truncating cast (2×) or a second rounding (≈1.4×) still fails.
constexpr double kL2Factor = 1.25;

// fp32 accumulation over K products grows like √K units of 2^-24 (a random walk; measured on an
// H200 at K = 520: elementwise up to 3.4e-6, relative L2 up to 6.5e-7 of the output's scale, fp32
// output); 8√K leaves over 3× room elementwise. The constant 16 is the fp32 epilogue's own error
// (approximate ex2/rcp in σ, erff: a few fp32 ulps, up to ~8 after GELU's x·σ(·)), which matters at
// small K. The L2 allowance is a quarter of these: errors average out over the tensor.
// The allowance is in units of the accumulators' error, carried to the output by the epilogue's
// gain: about 1 for the GEMM's epilogues, measured against |ref| + rms(ref). The gated product
// out = s·act(g)·u carries them by |s|·(|act'(g)|·|u| + |act(g)|), which can be far above
// |out| + rms(out) where out is small (an H200 run at K = 16384 put one gated output at 1.07× the
// GEMM's bound), so its checks pass that gain per element (testing/gated_problem.cpp).
inline double fp32_allowance(std::int64_t K) {
  return (8.0 * std::sqrt(static_cast<double>(K)) + 16.0) / 16777216.0;
}
inline double fp32_l2_allowance(std::int64_t K) {
  return (2.0 * std::sqrt(static_cast<double>(K)) + 4.0) / 16777216.0;
}

// ---- baselines and multi-rounding paths (cuBLASLt, the unfused and eager paths) ---------------
// They round their intermediates too, so they are judged by the looser rule of STYLE.md: relative
// L2 within kUnfusedFactor × the eager same-precision path's error + noise, and under a ceiling;
// every element within `elem` of the reference, measured as |out − ref| / (|ref| + rms(ref)).
constexpr double kUnfusedFactor = 2.0;

struct Tolerance {
  double noise;   // added to kUnfusedFactor × unfused error
  double rel_l2;  // ceiling on ‖out − ref‖₂ / ‖ref‖₂
  double elem;    // ceiling on max |out − ref| / (|ref| + rms(ref))
  const char* reason;
};

constexpr Tolerance baseline_tolerance(DType output) {
  switch (output) {
    case DType::kBF16:
      // One rounding to bf16 (8-bit significand): u = 2^-8 per element, about u/√3 ≈ 2.3e-3 in L2;
      // an eager path rounds once per op. Two or three roundings: 2u elementwise.
      return {1e-4, 6e-3, 2.0 / 256, "bf16 output: u = 2^-8 per rounding; ceilings 2u elementwise"};
    case DType::kFP16:
      return {2e-5, 1e-3, 2.0 / 2048, "fp16 output: u = 2^-11 per rounding; ceilings 2u elementwise"};
    case DType::kFP32:
      // fp32 accumulation order of K products (√K·2^-24 ≈ 5e-6 at K = 8192) and fp32 transcendentals.
      return {3e-5, 1e-4, 2e-4, "fp32 output: fp32 accumulation order and fp32 transcendentals"};
    case DType::kFP8E4M3:
    case DType::kFP8E5M2: break;
  }
  return {0, 0, 0, "no baseline tolerance for this dtype"};
}

// ---- reductions --------------------------------------------------------------------------------
// Reductions read fp32 y before the cast; each y carries the GEMM's fp32 accumulation error
// relative to max(|y|, rms(y)), and sums add fp32 summation order over up to 28672 terms. The
// accumulation error grows with K (on an H200: within 2e-5 of the scale in the whole suite, K ≤
// 8192; up to 3.4e-5 at K = 14336, the Llama-3-8B down projection), so the bound grows with K.
constexpr double reduction_tolerance(std::int64_t K) {
  return 3e-5 * (K > 8192 ? static_cast<double>(K) / 8192.0 : 1.0);  // × (Σ|y| + n·rms) or (max|y| + rms)
}

}  // namespace epifuse::testing

// The run-time epilogue of a GEMM: what happens to each accumulator before it is stored.
//
//   z[m,n] = alpha · row_scale[m] · col_scale[n] · acc[m,n] + col_bias[n] + row_bias[m]
//   y[m,n] = act(z + beta·C[m,n])   if residual_order == kBeforeActivation   (addmm / CUTLASS order)
//          = act(z) + beta·C[m,n]   if residual_order == kAfterActivation    (residual connection)
//   D[m,n] = cast<D dtype>(y[m,n])  (round to nearest even)
//
// Every operand is optional: a null vector acts as 1 (scales) or 0 (biases); a null
// `residual` drops the beta·C term. Reductions read y in fp32, before the cast, over the
// valid M×N region only; a null output skips that reduction.
//   row_sum[m] = Σ_n y[m,n]      row_amax[m] = max_n |y[m,n]|
//   col_sum[n] = Σ_m y[m,n]      col_amax[n] = max_m |y[m,n]|      amax[0] = max_{m,n} |y[m,n]|
// Reductions are deterministic: the same inputs give bitwise-identical results. Over an empty
// range (M = 0 or N = 0) a requested reduction is its identity, 0, for sums and maxima of |y| alike.
#pragma once

#include <cstdint>

#include "epifuse/epilogue/activation.hpp"
#include "epifuse/types.hpp"

namespace epifuse {

enum class ResidualOrder {
  kAfterActivation,   // y = act(z) + beta·C
  kBeforeActivation,  // y = act(z + beta·C)
};

struct Epilogue {
  float alpha = 1.0f;                // finite
  const float* row_scale = nullptr;  // [M] fp32, 4-byte aligned
  const float* col_scale = nullptr;  // [N] fp32, 4-byte aligned
  // [N] nn.Linear's bias, of col_bias_dtype: fp32, or D's type where D is bf16 or fp16 (a bf16
  // model's own bias; cuBLASLt reads it as it is where a call is delegated, epifuse's kernels an
  // fp32 copy in the workspace, gemm.hpp), aligned to its element.
  const void* col_bias = nullptr;
  DType col_bias_dtype = DType::kFP32;
  const float* row_bias = nullptr;   // [M] fp32, 4-byte aligned

  Activation activation = Activation::kIdentity;
  float leaky_slope = 0.01f;  // kLeakyReLU; finite
  float clamp_lo = 0.0f;      // kClamp; requires clamp_lo <= clamp_hi
  float clamp_hi = 0.0f;

  const void* residual = nullptr;  // C [M, ldc] row-major, same dtype as D; may equal D (in place)
  std::int64_t ldc = 0;
  float beta = 1.0f;  // finite
  ResidualOrder residual_order = ResidualOrder::kAfterActivation;

  float* row_sum = nullptr;   // [M] fp32
  float* row_amax = nullptr;  // [M] fp32
  float* col_sum = nullptr;   // [N] fp32
  float* col_amax = nullptr;  // [N] fp32
  float* amax = nullptr;      // [1] fp32

  bool has_reductions() const { return row_sum || row_amax || col_sum || col_amax || amax; }
  bool has_column_reductions() const { return col_sum || col_amax; }
};

// The epilogues a compiled kernel serves. For the GEMM, narrowest first: dispatch runs the
// narrowest kernel that covers a call's epilogue (fewer nodes in the epilogue tree cost less time
// per tile). The gated MLP has one epilogue of its own.
enum class EpilogueCoverage {
  kCastOnly,                  // D = cast(acc): alpha 1, no operands, identity, no reductions
  kBiasActivation,            // D = cast(act(alpha·acc + col_bias[n]))
  kFull,                      // every operand and activation, residual, amax, row_sum, row_amax
  kFullWithColumnReductions,  // kFull plus col_sum, col_amax
  kGatedPair,                 // gated MLP: scale · act(gate + bg) · (up + bu) over packed gate/up pairs
};

constexpr const char* to_string(EpilogueCoverage c) {
  switch (c) {
    case EpilogueCoverage::kCastOnly: return "cast_only";
    case EpilogueCoverage::kBiasActivation: return "bias_activation";
    case EpilogueCoverage::kFull: return "full";
    case EpilogueCoverage::kFullWithColumnReductions: return "full_with_column_reductions";
    case EpilogueCoverage::kGatedPair: return "gated_pair";
  }
  return "unknown coverage";
}

// The narrowest GEMM coverage that serves `e`.
inline EpilogueCoverage required_coverage(const Epilogue& e) {
  if (e.has_column_reductions()) return EpilogueCoverage::kFullWithColumnReductions;
  if (e.residual || e.row_scale || e.col_scale || e.row_bias || e.has_reductions()) return EpilogueCoverage::kFull;
  if (e.alpha != 1.0f || e.col_bias || e.activation != Activation::kIdentity) return EpilogueCoverage::kBiasActivation;
  return EpilogueCoverage::kCastOnly;
}

}  // namespace epifuse

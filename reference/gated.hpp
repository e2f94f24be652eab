// fp64 CPU mirror of epifuse::gated_mlp, and of the unfused bf16/fp16 path it replaces
// (GEMM [M, 2N] stored in the dtype, then act·mul in fp32 stored in the dtype).
// Operands are host fp32 copies of the exact bf16/fp16 values the GPU reads.
#pragma once

#include <cstdint>
#include <vector>

#include "epifuse/gated_mlp.hpp"
#include "epifuse/types.hpp"

namespace epifuse::reference {

struct GatedOperands {
  std::int64_t N = 0, K = 0;
  const float* x = nullptr;  // [M, ldx]
  std::int64_t ldx = 0;
  const float* gate = nullptr;  // [N, K] (unpacked)
  const float* up = nullptr;    // [N, K]
  const float* gate_bias = nullptr;  // [N] or null
  const float* up_bias = nullptr;    // [N] or null
  GatedActivation activation = GatedActivation::kSwiGLU;
  double limit = 0.0;  // <= 0 or infinite: no clamp
  double scale = 1.0;
};

// act applied to the (clamped) gate, times the (clamped) up value, times scale.
double gated_value(const GatedOperands& g, double gate, double up);

// Pre-activation gate and up values [rows, N] each, fp64, bias included.
struct GateUpValues {
  std::vector<double> gate, up;
};
GateUpValues gate_up_rows(const GatedOperands& g, const std::vector<std::int64_t>& rows);

// out [rows, N] in fp64.
std::vector<double> gated_rows(const GatedOperands& g, const GateUpValues& v);

// The unfused path: gate and up rounded to `dtype` (the GEMM's output), act·mul in fp32, rounded to `dtype`.
std::vector<double> unfused_gated_rows(const GatedOperands& g, DType dtype, const GateUpValues& v);

}  // namespace epifuse::reference

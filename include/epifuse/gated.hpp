// The fused gated MLP on Hopper (sm_90a), one kernel:
//
//   out[M,N] = scale · act(x·Wgᵀ + bg) ⊙ (x·Wuᵀ + bu)
//
// x: row-major [M, ldx], K contiguous. W: the packed gate/up weight (gate_up_packing.hpp).
// out: row-major [M, ldo]. fp32 accumulation and epilogue math; x, W and out share one dtype
// (bf16 or fp16). The [M, 2N] product stays in registers: only out is written.
//
// Clamped SwiGLU (as gpt-oss-style MoE models use) is kSwiGLU with a finite `limit`:
// gate ← min(gate, limit), up ← clamp(up, −limit, limit) before act(gate)·up.
//
// Rules, checked before anything is launched (kInvalidArgument, nothing written otherwise):
//   M ≥ 0 (M = 0 is a no-op), M, 2N, K, ldx, ldo < 2^31; W packed (layout kGateUpBlocks8), N, K > 0,
//   multiples of 8;
//   args.N equal to the packed weight's N;
//   ldx ≥ K and ldo ≥ N, multiples of 8 elements (16-byte TMA strides); x, W, out 16-byte
//   aligned, bias 4-byte aligned; x, W and out of the same dtype; limit > 0; scale finite;
//   out must not overlap x, W or the bias.
#pragma once

#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include <cuda_runtime_api.h>

#include "epifuse/epilogue/activation.hpp"
#include "epifuse/gate_up_packing.hpp"
#include "epifuse/status.hpp"
#include "epifuse/types.hpp"

namespace epifuse {

enum class GatedActivation {
  kSwiGLU,     // silu(g)·u
  kGeGLUTanh,  // gelu_tanh(g)·u
  kGeGLUErf,   // gelu_erf(g)·u
  kReGLU,      // relu(g)·u
};

const char* to_string(GatedActivation a);

// The activation applied to the gate.
constexpr Activation gate_activation(GatedActivation a) {
  switch (a) {
    case GatedActivation::kSwiGLU: return Activation::kSiLU;
    case GatedActivation::kGeGLUTanh: return Activation::kGeluTanh;
    case GatedActivation::kGeGLUErf: return Activation::kGeluErf;
    case GatedActivation::kReGLU: return Activation::kReLU;
  }
  return Activation::kIdentity;
}

struct GatedArgs {
  std::int64_t M = 0;
  std::int64_t N = 0;  // the output width the caller expects: must equal w.N
  const void* x = nullptr;  // [M, K]
  std::int64_t ldx = 0;
  PackedGateUp w;
  void* out = nullptr;  // [M, N]
  std::int64_t ldo = 0;

  GatedActivation activation = GatedActivation::kSwiGLU;
  float limit = std::numeric_limits<float>::infinity();
  float scale = 1.0f;

  // Force a kernel by name (see gated_kernels()); null lets the heuristic choose.
  const char* kernel = nullptr;
};

Status validate_gated_args(const GatedArgs& args);

// Enqueues the fused gated MLP on `stream`. Returns after the launch.
Status gated_mlp(const GatedArgs& args, cudaStream_t stream);

struct GatedKernelInfo {
  std::string name;  // e.g. "sm90_gated_bf16_coop_128x256x64_c2x1"
  DType dtype;
  bool swap_ab;
  int tile_m, tile_n, tile_k;  // CTA tile of the GEMM actually run (2N packed rows on N, or on M when swapped)
};

std::vector<GatedKernelInfo> gated_kernels();

// The kernel gated_mlp(args) would run (validates args first).
Status gated_selected_kernel(const GatedArgs& args, std::string* name);

}  // namespace epifuse

// The fused gated MLP, one kernel, on the GPU of the stream it is enqueued on:
//
//   out[M,N] = scale · act(x·Wgᵀ + bg) ⊙ (x·Wuᵀ + bu)
//
// x: row-major [M, ldx], K contiguous. W: the packed gate/up weight (packing/gate_up.hpp).
// out: row-major [M, ldo]. fp32 accumulation and epilogue math. The [M, 2N] product stays in
// registers: only out is written.
//
// Clamped SwiGLU (as gpt-oss-style MoE models use) is kSwiGLU with a finite `limit`:
// gate ← min(gate, limit), up ← clamp(up, −limit, limit) before act(gate)·up.
//
// Compiled today (sm_90a): x, W and out all bf16 or all fp16.
// Rules, checked before anything is launched (kInvalidArgument, nothing written otherwise):
//   M ≥ 0 (M = 0 is a no-op), M, 2N, K < 2^31; W packed (layout kGateUpBlocks8), N, K > 0 and
//   multiples of 8; args.N equal to the packed weight's N; ldx ≥ K and ldo ≥ N, multiples of
//   16 bytes and < 2^40 bytes; x, W, out 16-byte aligned, bias 4-byte aligned; limit > 0;
//   scale finite; out must not overlap x, W, the bias or the workspace; the stream belongs to
//   the current device.
// Workspace: gated_mlp_workspace_size() bytes. Where M leaves the chosen kernel's last token tile
// at least a quarter empty (between 65 and 1152 tokens), the kernel reads a zero-padded copy of x
// from the workspace ((M rounded up) · K elements), because TMA loads that run past x's last row
// are several times slower. A call given less workspace reads x in place: the same result, slower
// at such M.
// Delegation: the call may run cuBLASLt's GEMM into an fp32 [M, 2N] product in the workspace and
// epifuse's act·mul kernel after it, rounded once as the fused kernels round. Dispatch's rule
// delegates narrow weights with a long K (few tiles for the GPU; dispatch/sm90 names it), where
// the fused kernels were measured slower. With tuning on (tuning.hpp, the default), the first
// launch of a shape whose workspace holds the product times both paths on its own operands and
// the shape keeps the faster. The workspace query makes room for the product where the rule
// delegates, or where it takes no more bytes than x (K >= 4N), or 1/8 of the weight on 17 to K/16
// tokens with a weight larger than L2, and at most 256 MiB: an MLP's gate/up (N > K) holds one
// only there or where the rule delegates it. A forced kernel, or a workspace smaller than the
// product, runs a fused kernel. At 321-352 tokens the first launch also times two 176-token
// tiles (352 rows) beside the rules' pick (on most weights 96-token pairs or 128-row tiles, 384
// rows), and at 353-1023 tokens seven tilings (the five the rules pick most there and the 112-
// and 176-token tiles); the shape keeps the fastest, and the workspace query covers them too.
// Such a first launch keeps the GPU busy for about 100 ms before it times (a busy GPU's clock
// ranks tilings unlike an idle one's), so it takes about 0.1-0.2 s of host time on the catalogue
// MLPs, up to 0.7 s on weights of several GB. selected_kernel() (tuning.hpp) says which runs.
#pragma once

#include <cstddef>
#include <cstdint>
#include <limits>
#include <optional>

#include <cuda_runtime_api.h>

#include "epifuse/epilogue/activation.hpp"
#include "epifuse/kernel_key.hpp"
#include "epifuse/packing/gate_up.hpp"
#include "epifuse/status.hpp"
#include "epifuse/types.hpp"

namespace epifuse {

enum class GatedActivation {
  kSwiGLU,     // silu(g)·u
  kGeGLUTanh,  // gelu_tanh(g)·u
  kGeGLUErf,   // gelu_erf(g)·u
  kReGLU,      // relu(g)·u
};

constexpr const char* to_string(GatedActivation a) {
  switch (a) {
    case GatedActivation::kSwiGLU: return "swiglu";
    case GatedActivation::kGeGLUTanh: return "geglu_tanh";
    case GatedActivation::kGeGLUErf: return "geglu_erf";
    case GatedActivation::kReGLU: return "reglu";
  }
  return "unknown gated activation";
}

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

struct GatedMlpArgs {
  std::int64_t M = 0;
  std::int64_t N = 0;  // the output width the caller expects: must equal w.N
  DType x_dtype = DType::kBF16;
  const void* x = nullptr;  // [M, K]
  std::int64_t ldx = 0;
  PackedGateUp w;  // its dtype is the weight's element type
  DType out_dtype = DType::kBF16;
  void* out = nullptr;  // [M, N]
  std::int64_t ldo = 0;

  GatedActivation activation = GatedActivation::kSwiGLU;
  float limit = std::numeric_limits<float>::infinity();
  float scale = 1.0f;

  void* workspace = nullptr;  // at least gated_mlp_workspace_size() bytes, 16-byte aligned
  std::size_t workspace_bytes = 0;

  // Forces a kernel and its launch knobs (tuning.hpp); empty lets dispatch choose.
  std::optional<KernelChoice> kernel;
};

// Checks `args` against the rules above without touching the GPU.
Status validate_gated_mlp_args(const GatedMlpArgs& args);

// Bytes of workspace gated_mlp(args, stream) needs. args.workspace may be null; it is not read.
Status gated_mlp_workspace_size(const GatedMlpArgs& args, cudaStream_t stream, std::size_t* bytes);

// Enqueues the fused gated MLP on `stream`. Returns after the launch.
Status gated_mlp(const GatedMlpArgs& args, cudaStream_t stream);

}  // namespace epifuse

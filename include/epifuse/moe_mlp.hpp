// A Mixture-of-Experts MLP layer (its routed experts), from the router's choice to the output:
//
//   y[t,:] = Σ_j w[t,j] · down[e](scale · act(x[t,:]·Wg[e]ᵀ) ⊙ (x[t,:]·Wu[e]ᵀ))  (+ add[t,:])
//            with e = topk_ids[t,j], j < k
//
// On the stream, without a host synchronisation or an allocation (capturable in a CUDA graph for
// a fixed T): the (token, choice) pairs are sorted by expert (a stable radix sort: pairs of one
// expert keep their token order) and x's rows gathered in that order; grouped_gated_mlp and
// grouped_gemm run the experts; one pass sums each token's k rows, weighted, in fp32, in the
// order j = 0..k-1, adds `add` (a shared expert's output, or a residual) and rounds once.
// Deterministic: no float atomics; the same inputs give the same bits.
//
// Expert ids outside [0, E) are dropped: the pair adds nothing to y; `dropped` (optional, device
// int32) receives their count, written on the stream by every call.
//
// Operands (dtype: bf16; fp16 where kernels are compiled for it; one dtype for x, the weights,
// add and y): x row-major [T, ldx]; topk_ids int32 and topk_weights fp32, [T, k] contiguous, on
// the device; gate_up: E packed gate/up weights (packing/gate_up.hpp) [2N, K], gate_up.weight
// being expert 0's and gate_up_stride elements from one to the next (no bias); down: E weights in
// nn.Linear layout [K, N], down_stride elements apart; add (optional) row-major [T, ld_add]; y
// row-major [T, ldy], which may be add itself (in place) but overlaps nothing else.
//
// Rules, checked before anything is launched (kInvalidArgument, nothing written otherwise): T ≥ 0,
// 1 ≤ k ≤ E, E < 2^31, T·k < 2^31; gate_up as grouped_gated_mlp takes it (gate_up.N = N, .K = K);
// K and N multiples of 8 (16 bytes); down_stride ≥ K·N and a multiple of 8; ldx ≥ K, ldy ≥ K,
// ld_add ≥ K, multiples of 8; pointers 16-byte aligned (topk arrays 4-byte); limit > 0, scale
// finite. Workspace: moe_mlp_workspace_size() bytes, 16-byte aligned: the sorted pairs, the
// expert offsets, the gathered x [T·k, K], the gated activations [T·k, N], the experts' outputs
// [T·k, K] (no [T·k, 2N] product is ever stored) and the grouped launches' own.
#pragma once

#include <cstddef>
#include <cstdint>
#include <limits>

#include <cuda_runtime_api.h>

#include "epifuse/gated_mlp.hpp"
#include "epifuse/packing/gate_up.hpp"
#include "epifuse/status.hpp"
#include "epifuse/types.hpp"

namespace epifuse {

struct MoeMlpArgs {
  std::int64_t tokens = 0;   // T
  std::int64_t experts = 0;  // E
  std::int64_t topk = 0;     // k
  DType dtype = DType::kBF16;

  const void* x = nullptr;  // [T, K]
  std::int64_t ldx = 0;
  const std::int32_t* topk_ids = nullptr;  // [T, k]
  const float* topk_weights = nullptr;     // [T, k]

  PackedGateUp gate_up;  // expert 0's; its N and K are the layer's
  std::int64_t gate_up_stride = 0;
  const void* down = nullptr;  // expert 0's [K, N]
  std::int64_t down_stride = 0;

  GatedActivation activation = GatedActivation::kSwiGLU;
  float limit = std::numeric_limits<float>::infinity();
  float scale = 1.0f;

  const void* add = nullptr;  // optional [T, K]
  std::int64_t ld_add = 0;
  void* y = nullptr;  // [T, K]
  std::int64_t ldy = 0;
  std::int32_t* dropped = nullptr;  // optional, device: pairs whose expert id is outside [0, E)

  void* workspace = nullptr;
  std::size_t workspace_bytes = 0;
};

// Checks `args` against the rules above without touching the GPU.
Status validate_moe_mlp_args(const MoeMlpArgs& args);

// Bytes of workspace moe_mlp(args, stream) needs. args.workspace may be null.
Status moe_mlp_workspace_size(const MoeMlpArgs& args, cudaStream_t stream, std::size_t* bytes);

// Enqueues the layer on `stream`.
Status moe_mlp(const MoeMlpArgs& args, cudaStream_t stream);

}  // namespace epifuse

// The fused gated MLP of a Mixture-of-Experts layer's experts, every expert in one launch:
//
//   for each expert e, each row r in [offsets[e], offsets[e+1]):
//     out[r,:] = scale · act(x[r,:]·Wg[e]ᵀ + bg[e]) ⊙ (x[r,:]·Wu[e]ᵀ + bu[e])
//
// x: row-major [T, ldx], its rows grouped by expert as a MoE permute leaves them; out: row-major
// [T, ldo]. The expert offsets are int32 [E + 1] in device memory and are read on the device
// only: no host synchronisation, so a call can be captured in a CUDA graph for a fixed T while
// the routing changes between replays. On the device each offset is clamped into [0, T] and to
// at least the one before it, so offsets that are out of range or decreasing never make the
// kernel read or write out of bounds: a row outside every expert's run is left unwritten.
//
// The weights: E packed gate/up weights (packing/gate_up.hpp), all with one N, K and dtype.
// gated.w describes expert 0's; expert e's weight starts weight_stride elements after expert
// e-1's, its bias (when gated.w.bias is set) bias_stride floats after expert e-1's.
//
// Rules, checked before anything is launched (kInvalidArgument, nothing written otherwise):
// those of gated_mlp (gated_mlp.hpp) for the call over all T rows (gated.M = T); experts ≥ 1
// and < 2^31; expert_offsets non-null and 4-byte aligned; weight_stride ≥ 2N·K and a multiple of
// 8; max_expert_rows ≥ 0; with a bias, bias_stride ≥ 2N; out must not overlap any expert's
// weight or bias, the offsets or the workspace. A forced kernel (gated.kernel) must be a grouped
// one.
// Workspace: grouped_gated_mlp_workspace_size() bytes (the experts' shapes and operand pointers
// for the kernel, and CUTLASS's per-SM descriptors).
#pragma once

#include <cstddef>
#include <cstdint>

#include <cuda_runtime_api.h>

#include "epifuse/gated_mlp.hpp"
#include "epifuse/status.hpp"

namespace epifuse {

struct GroupedGatedMlpArgs {
  // The gated MLP over all T rows as if one expert had them: M = T, x, out, expert 0's packed
  // weight, the activation, limit and scale, the workspace, a forced kernel.
  GatedMlpArgs gated;
  std::int64_t experts = 0;                      // E
  const std::int32_t* expert_offsets = nullptr;  // device, [E + 1]
  std::int64_t weight_stride = 0;                // elements from one expert's packed weight to the next
  std::int64_t bias_stride = 0;                  // floats from one expert's packed bias to the next
  // Optional: no expert has more rows than this (0: unknown; T bounds it). Dispatch reads it only
  // to choose kernels (with at most 64, one launch of the few-rows kernel serves every expert), so
  // an expert past it is still computed correctly, at that kernel's speed. A MoE engine knows T:
  // each token adds at most one row to an expert.
  std::int64_t max_expert_rows = 0;
};

// Checks `args` against the rules above without touching the GPU.
Status validate_grouped_gated_mlp_args(const GroupedGatedMlpArgs& args);

// Bytes of workspace grouped_gated_mlp(args, stream) needs. args.gated.workspace may be null.
Status grouped_gated_mlp_workspace_size(const GroupedGatedMlpArgs& args, cudaStream_t stream, std::size_t* bytes);

// Enqueues every expert's fused gated MLP on `stream`. Dispatch runs one launch per grouped kernel,
// each over the experts whose row count suits it (few rows: the weight on wgmma's 128-row side;
// many: 128-row tiles of x), as a small setup kernel that reads the offsets and writes those
// experts' shapes and operands into the workspace, then the grouped kernel. A forced kernel
// (gated.kernel) runs every expert in one launch.
Status grouped_gated_mlp(const GroupedGatedMlpArgs& args, cudaStream_t stream);

}  // namespace epifuse

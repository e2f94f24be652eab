// The GEMMs of a Mixture-of-Experts layer's experts, every expert in one launch (the down
// projection after grouped_gated_mlp):
//
//   for each expert e, each row r in [offsets[e], offsets[e+1]):
//     D[r,:] = cast(A[r,:] · B[e]ᵀ)
//
// A: row-major [T, lda], its rows grouped by expert as a MoE permute leaves them; D: row-major
// [T, ldd]. B: E weights in nn.Linear layout, each [N, ldb]; gemm.B is expert 0's, expert e's
// starts weight_stride elements after expert e-1's. The expert offsets are int32 [E + 1] in
// device memory, read on the device only and clamped there as grouped_gated_mlp.hpp says: a row
// outside every expert's run is left unwritten.
//
// Rules, checked before anything is launched (kInvalidArgument, nothing written otherwise):
// those of gemm (gemm.hpp) for the call over all T rows (gemm.M = T); the epilogue is the cast
// alone (default Epilogue: alpha 1, no operand, identity, no reduction); experts ≥ 1 and < 2^31;
// expert_offsets non-null and 4-byte aligned; weight_stride ≥ N·ldb and a multiple of 16 bytes;
// max_expert_rows ≥ 0; D must not overlap any expert's weight, the offsets or the workspace. A
// forced kernel (gemm.kernel) must be a grouped GEMM one. Workspace: grouped_gemm_workspace_size()
// bytes.
#pragma once

#include <cstddef>
#include <cstdint>

#include <cuda_runtime_api.h>

#include "epifuse/gemm.hpp"
#include "epifuse/status.hpp"

namespace epifuse {

struct GroupedGemmArgs {
  // The GEMM over all T rows as if one expert had them: M = T, A, expert 0's B, D, the dtypes,
  // the workspace, a forced kernel.
  GemmArgs gemm;
  std::int64_t experts = 0;                      // E
  const std::int32_t* expert_offsets = nullptr;  // device, [E + 1]
  std::int64_t weight_stride = 0;                // elements from one expert's B to the next
  std::int64_t max_expert_rows = 0;              // optional, as grouped_gated_mlp.hpp says
};

// Checks `args` against the rules above without touching the GPU.
Status validate_grouped_gemm_args(const GroupedGemmArgs& args);

// Bytes of workspace grouped_gemm(args, stream) needs. args.gemm.workspace may be null.
Status grouped_gemm_workspace_size(const GroupedGemmArgs& args, cudaStream_t stream, std::size_t* bytes);

// Enqueues every expert's GEMM on `stream`: as grouped_gated_mlp, one launch per grouped kernel
// over the experts whose row count suits it (a forced kernel runs every expert in one launch).
Status grouped_gemm(const GroupedGemmArgs& args, cudaStream_t stream);

}  // namespace epifuse

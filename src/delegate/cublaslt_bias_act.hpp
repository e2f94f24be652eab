// The GEMM delegated to cuBLASLt + epifuse's bias + activation kernel, where dispatch finds
// epifuse's own kernels measured slower on a bias + activation epilogue cuBLASLt cannot fuse
// (few weight tiles or long rows at 9-64 tokens: gemm_bias_act_delegation_pays in
// dispatch/select.hpp).
// cuBLASLt writes the fp32 product A·Bᵀ [M, N] into the workspace; kernels/bias_activation.cu
// applies alpha, the column bias and the activation and rounds once, as the fused kernels do.
//
// Workspace: [up to 255 bytes to a 256-byte boundary][the product, M rows of N rounded up to 4
// fp32, in whole 256-byte units][cuBLASLt's workspace]. A call given less than the product runs
// epifuse's own kernel.
#pragma once

#include <cstddef>
#include <cstdint>

#include <cuda_runtime_api.h>

#include "delegate/cublaslt_gemm.hpp"
#include "epifuse/gemm.hpp"
#include "epifuse/status.hpp"

namespace epifuse::detail {

struct DelegatedBiasActPlan {
  DelegatedPlan product;  // found false: the call runs epifuse's own kernel
  std::size_t product_bytes = 0;

  bool found() const { return product.found; }
  // What the call needs of the caller's workspace.
  std::size_t workspace_bytes() const {
    return kDelegatedWorkspaceAlignment + product_bytes + product.workspace_bytes();
  }
};

// For validated args: whether the delegated path computes the call's epilogue (no kernel forced,
// bf16 or fp16 operands and D of one type, alpha, column bias and activation at most).
bool bias_act_delegable(const GemmArgs& args);

// For validated args that launch on `device`, given `usable_bytes` of workspace from its first
// 256-byte boundary on (a workspace query: the most there is): cuBLASLt's plan for the product
// with at most kDelegatedWorkspaceCap of its own workspace, cached as plan_delegated_gemm caches.
DelegatedBiasActPlan plan_delegated_bias_act(const GemmArgs& args, int device, std::size_t usable_bytes);

// Enqueues the planned product and the bias + activation kernel on `stream`.
Status run_delegated_bias_act(const GemmArgs& args, const DelegatedBiasActPlan& plan, cudaStream_t stream);

}  // namespace epifuse::detail

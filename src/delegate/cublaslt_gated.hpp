// The gated MLP delegated to cuBLASLt + epifuse's act·mul kernel, where dispatch finds epifuse's
// fused kernels measured slower (narrow weights with a long K: gated_delegation_pays in
// dispatch/select.hpp). cuBLASLt writes the fp32 product x·Wᵀ [M, 2N] of the packed weight into
// the workspace; kernels/gated_act_mul.cu applies bias, limit, activation and scale and rounds
// once, as the fused kernels do.
//
// Workspace: [up to 255 bytes to a 256-byte boundary][the product, M·2N fp32, in whole 256-byte
// units][cuBLASLt's workspace]. A call given less than the product runs the fused kernel.
#pragma once

#include <cstddef>

#include <cuda_runtime_api.h>

#include "delegate/cublaslt_gemm.hpp"
#include "epifuse/gated_mlp.hpp"
#include "epifuse/status.hpp"

namespace epifuse::detail {

struct DelegatedGatedPlan {
  DelegatedPlan product;  // found false: the call runs a fused kernel
  std::size_t product_bytes = 0;

  bool found() const { return product.found; }
  // What the call needs of the caller's workspace.
  std::size_t workspace_bytes() const {
    return kDelegatedWorkspaceAlignment + product_bytes + product.workspace_bytes();
  }
};

// For validated args with M > 0 on `device`, given `usable_bytes` of workspace from its first
// 256-byte boundary on (a workspace query: the most there is): cuBLASLt's plan for the product
// with at most kDelegatedWorkspaceCap of its own workspace, cached as plan_delegated_gemm caches.
DelegatedGatedPlan plan_delegated_gated(const GatedMlpArgs& args, int device, std::size_t usable_bytes);

// Enqueues the planned product and the act·mul kernel on `stream`.
Status run_delegated_gated(const GatedMlpArgs& args, const DelegatedGatedPlan& plan, cudaStream_t stream);

}  // namespace epifuse::detail

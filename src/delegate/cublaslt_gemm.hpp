// The GEMM delegated to cuBLASLt. epifuse's own GEMM kernels trail cuBLASLt at nearly every shape
// measured (bench/results/grid/: 0.39-0.98x over Llama-3 8B/70B projections at 1-4200 tokens), so
// a call whose epilogue cuBLASLt computes exactly as epifuse defines it runs cuBLASLt instead;
// epifuse's kernels serve what cuBLASLt cannot fuse (scales, row bias, other activations, a bias
// with a 16-bit D, a residual after the activation, reductions) and forced kernels.
#pragma once

#include <cstddef>

#include <cublasLt.h>
#include <cuda_runtime_api.h>

#include "epifuse/gemm.hpp"
#include "epifuse/status.hpp"

namespace epifuse::detail {

// For validated args: D = act(alpha·A·Bᵀ + beta·C + col_bias) with act identity, ReLU or GELU
// (tanh), nothing else in the epilogue, no forced kernel, and C either absent, D itself at D's
// leading dimension, or disjoint from D.
bool cublaslt_expresses(const GemmArgs& args);

// The workspace a delegated call asks for at most: cuBLAS's recommendation for Hopper.
constexpr std::size_t kDelegatedWorkspaceCap = std::size_t{32} << 20;
// A delegated call's workspace starts at its first boundary of this many bytes, as cuBLASLt wants it.
constexpr std::size_t kDelegatedWorkspaceAlignment = 256;

struct DelegatedPlan {
  bool found = false;  // cuBLASLt has an algorithm for the call within the workspace
  int device = 0;
  cublasLtMatmulAlgo_t algo{};
  std::size_t workspace_bytes = 0;  // what that algorithm needs
};

// cuBLASLt's first heuristic choice for args on `device` with at most `max_workspace_bytes` of
// workspace, cached per shape, strides, types, epilogue, pointer alignment and workspace cap (for
// the process's lifetime: the first call of each shape pays the heuristic query).
// found stays false where cuBLASLt has no algorithm (the call then runs epifuse's kernel).
DelegatedPlan plan_delegated_gemm(const GemmArgs& args, int device, std::size_t max_workspace_bytes);

// Enqueues the planned cuBLASLt matmul on `stream` (on plan.device), with the caller's workspace.
Status run_delegated_gemm(const GemmArgs& args, const DelegatedPlan& plan, cudaStream_t stream);

// The part of a caller's workspace a delegated call may use: from its first 256-byte boundary on.
std::size_t usable_delegated_workspace(const void* workspace, std::size_t bytes);
std::size_t usable_delegated_workspace(const GemmArgs& args);
// That boundary.
void* aligned_delegated_workspace(void* workspace);

}  // namespace epifuse::detail

// The GEMM delegated to cuBLASLt. epifuse's own GEMM kernels trail cuBLASLt at nearly every shape
// measured (bench/results/grid/: 0.39-0.98x over Llama-3 8B/70B projections at 1-4200 tokens), so
// a call whose epilogue cuBLASLt computes exactly as epifuse defines it runs cuBLASLt instead;
// epifuse's kernels serve what cuBLASLt cannot fuse (scales, row bias, other activations, an fp32
// bias with a 16-bit D, a residual after the activation, reductions) and forced kernels, but for
// bias + activation calls on few weight tiles (delegate/cublaslt_bias_act.hpp).
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>

#include <cublasLt.h>
#include <cuda_runtime_api.h>

#include "epifuse/gemm.hpp"
#include "epifuse/status.hpp"

namespace epifuse::detail {

// For validated args: D = act(alpha·A·Bᵀ + beta·C + col_bias) with act identity, ReLU or GELU
// (tanh), nothing else in the epilogue, no forced kernel, C either absent, D itself at D's
// leading dimension, or disjoint from D, and a bias 16-byte aligned. cuBLASLt itself refuses an
// fp32 bias with a 16-bit D (no algorithm found).
bool cublaslt_expresses(const GemmArgs& args);

// The workspace a delegated call asks for at most: cuBLAS's recommendation for Hopper.
constexpr std::size_t kDelegatedWorkspaceCap = std::size_t{32} << 20;
// A delegated call's workspace starts at its first boundary of this many bytes, as cuBLASLt wants it.
constexpr std::size_t kDelegatedWorkspaceAlignment = 256;

// How many of cuBLASLt's heuristic candidates a delegated call weighs: as many as the bench's
// cuBLASLt baseline times (bench/baselines/cublaslt_gemm.cpp).
constexpr int kDelegatedCandidates = 4;

struct DelegatedCandidate {
  cublasLtMatmulAlgo_t algo{};
  std::size_t workspace_bytes = 0;  // what this algorithm needs
};

// Everything cuBLASLt's heuristic depends on: a plan's identity in the process's cache.
using DelegatedPlanKey = std::array<std::int64_t, 19>;

struct DelegatedPlan {
  bool found = false;  // cuBLASLt has an algorithm for the call within the workspace
  int device = 0;
  DelegatedPlanKey key{};
  // cuBLASLt's top candidates within the workspace, best-ranked first.
  std::array<DelegatedCandidate, kDelegatedCandidates> candidates{};
  int candidate_count = 0;
  // Which candidate runs; -1 until the first launch chooses one.
  int chosen = -1;

  // What the call may use of its workspace: the chosen candidate's need, or the largest of all
  // candidates' needs while the choice is open (what a workspace query reports).
  std::size_t workspace_bytes() const;
};

// cuBLASLt's top kDelegatedCandidates for args on `device` with at most `max_workspace_bytes` of
// workspace, cached per shape, strides, types, epilogue, pointer alignment and workspace cap (for
// the process's lifetime: the first call of each shape pays the heuristic query), with the choice
// made at that key's first launch. found stays false where cuBLASLt has no algorithm (the call
// then runs epifuse's kernel).
DelegatedPlan plan_delegated_gemm(const GemmArgs& args, int device, std::size_t max_workspace_bytes);

// For a delegated op whose own kernel reads an fp32 product (`product`: its GEMM, D anywhere
// 256-byte aligned) of `product_bytes` at the start of `usable_bytes` of workspace: cuBLASLt's plan
// for it with what follows (at most kDelegatedWorkspaceCap); found false where the product does
// not fit or cuBLASLt does not express it.
DelegatedPlan plan_delegated_product(const GemmArgs& product, std::size_t product_bytes, int device,
                                     std::size_t usable_bytes);

// Whether a plan's first launch times its candidates (see delegated_tuning() in epifuse/tuning.hpp).
bool delegated_tuning_enabled();
void set_delegated_tuning_enabled(bool enabled);
// EPIFUSE_DELEGATED_TUNING=log: each choice goes to stderr with every candidate's time.
bool delegated_tuning_logged();

// Enqueues the planned cuBLASLt matmul on `stream` (on plan.device), with the caller's workspace.
// At a plan's first launch it first chooses its candidate: with tuning on, outside stream capture
// and where D is not also the matmul's C (reruns would add to it), every candidate runs on the
// call's operands, timed (candidate_timing.hpp: the host waits for the stream), and the fastest
// is kept for the key; otherwise cuBLASLt's first candidate is kept.
Status run_delegated_gemm(const GemmArgs& args, const DelegatedPlan& plan, cudaStream_t stream);

// The part of a caller's workspace a delegated call may use: from its first 256-byte boundary on.
std::size_t usable_delegated_workspace(const void* workspace, std::size_t bytes);
std::size_t usable_delegated_workspace(const GemmArgs& args);
// That boundary.
void* aligned_delegated_workspace(void* workspace);

}  // namespace epifuse::detail

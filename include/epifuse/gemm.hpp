// D[M,N] = epilogue(A[M,K] · Bᵀ), on the GPU of the stream it is enqueued on.
//
// A: activations, row-major [M, lda], K contiguous.
// B: the weight in nn.Linear layout, row-major [N, ldb], K contiguous.
// D: row-major [M, ldd]. Accumulation is fp32; epilogue/epilogue.hpp has the epilogue.
//
// Compiled today (sm_90a: H100, H200): A = B bf16 → D bf16 or fp32; A = B fp16 → D fp16 or fp32.
// Other combinations are kNotSupported, and so is a device no kernel was compiled for.
// Rules, checked before anything is launched (a violation returns kInvalidArgument and touches
// nothing; the message names the argument):
//   M, N, K ≥ 0 and < 2^31; K ≥ 1 unless M·N = 0. M = 0 or N = 0 launches no GEMM; requested
//   reductions are set to their identity (epilogue.hpp) and nothing else is written.
//   TMA rules, from each operand's element size: K, lda, ldb multiples of 16 bytes of A's and B's
//   elements; N, ldd, ldc multiples of 16 bytes of D's; every leading dimension < 2^40 bytes;
//   lda ≥ K, ldb ≥ K, ldd ≥ N, ldc ≥ N; A, B, C, D 16-byte aligned; epilogue vectors aligned to
//   their element. epilogue.col_bias_dtype is fp32 or D's type where D is bf16 or fp16; any other
//   is kNotSupported.
//   alpha, beta, leaky_slope finite; clamp_lo ≤ clamp_hi.
//   D must not overlap A, B, an epilogue operand or the workspace; C may be D itself (in place)
//   but not overlap it otherwise; reduction outputs overlap nothing.
//   a_scale and b_scale are null (they are for the FP8 kernels to come).
//   The stream belongs to the current device.
// Workspace: gemm_workspace_size() says how many bytes the fastest kernel for the call needs. A
// call with column reductions must have them; otherwise they are optional: stream-K kernels (few
// tiles for the GPU) share tiles through them, and a call given less runs whole tiles instead.
// A 16-bit column bias on a call epifuse's own kernel runs is widened to fp32 at the workspace's
// start (N·4 bytes rounded up to 256, counted by the query, also for a delegated call); a call
// given less returns kInvalidArgument and launches nothing.
// Delegation: a call whose epilogue cuBLASLt computes exactly as epifuse defines it (alpha, a
// column bias 16-byte aligned, in D's type or fp32 with an fp32 D; identity, ReLU or GELU-tanh;
// a residual added before the activation) runs cuBLASLt, where epifuse's own GEMM kernels are
// measured slower: all but decode calls (M <= 8) on narrow weights (N 1024-2032 with K 2048-8192,
// N 2033-2048 with K 4096-8192) without a bias or residual, which run epifuse's warp-mma kernel.
// A forced kernel never runs cuBLASLt. selected_kernel() (tuning.hpp) says which runs.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>

#include <cuda_runtime_api.h>

#include "epifuse/epilogue/epilogue.hpp"
#include "epifuse/kernel_key.hpp"
#include "epifuse/status.hpp"
#include "epifuse/types.hpp"

namespace epifuse {

struct GemmArgs {
  std::int64_t M = 0, N = 0, K = 0;
  DType a_dtype = DType::kBF16;
  DType b_dtype = DType::kBF16;
  DType d_dtype = DType::kBF16;  // D and C

  const void* A = nullptr;
  std::int64_t lda = 0;
  const void* B = nullptr;
  std::int64_t ldb = 0;
  void* D = nullptr;
  std::int64_t ldd = 0;

  // Per-tensor dequantization scales of FP8 A and B. No FP8 kernel is compiled yet: keep null.
  const float* a_scale = nullptr;
  const float* b_scale = nullptr;

  Epilogue epilogue;

  void* workspace = nullptr;  // device memory, 16-byte aligned, gemm_workspace_size() bytes (see above)
  std::size_t workspace_bytes = 0;

  // Forces a kernel and its launch knobs (tuning.hpp lists the compiled kernels); empty lets
  // dispatch choose.
  std::optional<KernelChoice> kernel;
};

// Checks `args` against the rules above without touching the GPU.
Status validate_gemm_args(const GemmArgs& args);

// Bytes of workspace gemm(args, stream) needs. args.workspace may be null; it is not read.
Status gemm_workspace_size(const GemmArgs& args, cudaStream_t stream, std::size_t* bytes);

// Enqueues the GEMM on `stream`. Returns after the launch, not after completion.
Status gemm(const GemmArgs& args, cudaStream_t stream);

}  // namespace epifuse

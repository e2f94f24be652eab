// D[M,N] = epilogue(A[M,K] · Bᵀ) on Hopper (sm_90a).
//
// A: activations, row-major [M, lda], K contiguous.
// B: the weight in nn.Linear layout, row-major [N, ldb], K contiguous.
// D: row-major [M, ldd]. Accumulation is fp32; see epilogue/epilogue.hpp for the epilogue.
//
// Supported dtypes (A and B share one): bf16 → {bf16, fp32}, fp16 → {fp16, fp32}.
// Rules, checked before anything is launched (a violation returns kInvalidArgument):
//   M, N, K ≥ 0; K ≥ 1 unless M·N = 0; M = 0 or N = 0 is a no-op.
//   M, N, K < 2^31 (M·N may exceed it: indexing is 64-bit);
//   K, lda, ldb multiples of 8 elements, and N, ldd, ldc multiples of 16 bytes (TMA strides);
//   lda ≥ K, ldb ≥ K, ldd ≥ N, ldc ≥ N; A, B, C, D 16-byte aligned, epilogue vectors 4-byte aligned;
//   D must not overlap A, B or any epilogue operand; C may be D itself (in place) but not
//   overlap it otherwise; reduction outputs must not overlap each other or any operand.
// Work that needs scratch (reductions) takes `workspace`; gemm_workspace_size() says how much.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include <cuda_runtime_api.h>

#include "epifuse/epilogue/epilogue.hpp"
#include "epifuse/status.hpp"
#include "epifuse/types.hpp"

namespace epifuse {

struct GemmArgs {
  std::int64_t M = 0, N = 0, K = 0;
  DType input_dtype = DType::kBF16;   // A and B
  DType output_dtype = DType::kBF16;  // D (and C)

  const void* A = nullptr;
  std::int64_t lda = 0;
  const void* B = nullptr;
  std::int64_t ldb = 0;
  void* D = nullptr;
  std::int64_t ldd = 0;

  Epilogue epilogue;

  void* workspace = nullptr;  // device memory, 16-byte aligned, at least gemm_workspace_size() bytes
  std::size_t workspace_bytes = 0;

  // Force a kernel by name (see gemm_kernels()); null lets the heuristic choose.
  const char* kernel = nullptr;
};

// Checks `args` against the rules above without touching the GPU.
Status validate_gemm_args(const GemmArgs& args);

// Bytes of workspace `gemm(args)` needs (0 for most epilogues). Validates args first.
Status gemm_workspace_size(const GemmArgs& args, std::size_t* bytes);

// Enqueues the GEMM on `stream`. Returns after the launch, not after completion.
Status gemm(const GemmArgs& args, cudaStream_t stream);

// The epilogues a compiled kernel serves, narrowest first. Dispatch runs the narrowest kernel
// that covers a call's epilogue: fewer nodes in the epilogue tree cost less time per tile.
enum class EpilogueCoverage {
  kCastOnly,                  // D = cast(acc): alpha 1, no operands, identity, no reductions
  kBiasActivation,            // D = cast(act(alpha·acc + col_bias[n]))
  kFull,                      // every operand and activation, residual, amax, row_sum, row_amax
  kFullWithColumnReductions,  // kFull plus col_sum, col_amax
};

const char* to_string(EpilogueCoverage c);

// The narrowest coverage that serves `e`.
EpilogueCoverage required_coverage(const Epilogue& e);

struct GemmKernelInfo {
  std::string name;  // e.g. "sm90_bf16_bf16_coop_128x256x64_c2x1"
  DType input_dtype, output_dtype;
  bool swap_ab;            // computes Dᵀ = B·Aᵀ: the weight fills the 64-row wgmma side (small M)
  bool residual;           // compiled with C: serves epilogues with a residual
  EpilogueCoverage coverage;
  int tile_m, tile_n, tile_k;  // CTA tile in the GEMM actually run (M, N swapped when swap_ab)
};

// Every compiled kernel.
std::vector<GemmKernelInfo> gemm_kernels();

// The kernel `gemm(args)` would run (name only; validates args first).
Status gemm_selected_kernel(const GemmArgs& args, std::string* name);

}  // namespace epifuse

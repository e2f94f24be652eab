// cuBLASLt baseline for D[M,N] = epilogue(A[M,K] · B[N,K]ᵀ) with epifuse's layouts (row-major
// A, B, D): run as the column-major Dᵀ = B·Aᵀ, i.e. m = N, n = M, op(A) = T, op(B) = N.
#pragma once

#include <cstdint>
#include <functional>
#include <string>

#include <cublasLt.h>

#include "bench/harness/timing.hpp"
#include "epifuse/types.hpp"

namespace epifuse::bench {

enum class LtEpilogue {
  kNone,      // D = acc
  kGeluBias,  // D = gelu_tanh(acc + bias[n]); bias in D's dtype
};

class CublasLtGemm {
 public:
  CublasLtGemm(std::int64_t M, std::int64_t N, std::int64_t K, DType input, DType output, LtEpilogue epilogue);
  ~CublasLtGemm();
  CublasLtGemm(const CublasLtGemm&) = delete;
  CublasLtGemm& operator=(const CublasLtGemm&) = delete;

  // Times the top heuristic algorithms on these operands and keeps the fastest.
  void autotune(const void* A, const void* B, void* D, const void* bias);
  // The same, timed as a suite times its contenders: `run_set(i, stream)` runs the algorithm being
  // timed on operand set i of `measured.operand_sets`, captured in CUDA graphs where
  // `measured.graphs`. Timed one launch at a time on one set, calls of 5-10 µs ranked their
  // candidates by the host's launch gaps and by what L2 held. `bias`: the one the runs pass
  // (cuBLASLt's heuristic sees its alignment).
  void autotune(const std::function<void(int, cudaStream_t)>& run_set, const TimingOptions& measured, const void* bias);
  void run(const void* A, const void* B, void* D, const void* bias, cudaStream_t stream) const;
  // "heuristic #2 of 8" — which candidate won.
  const std::string& algo_description() const { return algo_description_; }

 private:
  cublasLtHandle_t handle_ = nullptr;
  cublasLtMatmulDesc_t desc_ = nullptr;
  cublasLtMatrixLayout_t a_layout_ = nullptr, b_layout_ = nullptr, d_layout_ = nullptr;
  cublasLtMatmulAlgo_t algo_{};
  void* workspace_ = nullptr;
  std::size_t workspace_bytes_ = 0;
  std::string algo_description_ = "heuristic #0";
  bool has_algo_ = false;
};

}  // namespace epifuse::bench

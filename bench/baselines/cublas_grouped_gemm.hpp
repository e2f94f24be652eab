// cuBLAS's grouped GEMM (cublasGemmGroupedBatchedEx) as a MoE baseline: D_g[M_g, N] =
// A_g[M_g, K] · B_g[N, K]ᵀ for each group g, row-major as epifuse lays them out, one call. The
// group sizes are host values (cuBLAS takes them from the host), so an engine would need them
// on the host before the call; epifuse's grouped ops read them on the device.
#pragma once

#include <cstdint>
#include <vector>

#include <cublas_v2.h>
#include <cuda_runtime_api.h>

#include "testing/device_buffer.hpp"

namespace epifuse::bench {

class CublasGroupedGemm {
 public:
  // Groups of `rows[g]` rows (0: skipped); operand g at a + offset(g)·K, b + g·N·K, d + offset(g)·N,
  // bf16 in and out, fp32 accumulation.
  CublasGroupedGemm(const std::vector<std::int64_t>& rows, std::int64_t N, std::int64_t K, const void* a,
                    const void* b, void* d);
  ~CublasGroupedGemm();
  CublasGroupedGemm(const CublasGroupedGemm&) = delete;
  CublasGroupedGemm& operator=(const CublasGroupedGemm&) = delete;

  void run(cudaStream_t stream) const;

 private:
  cublasHandle_t handle_ = nullptr;
  // Per non-empty group, the column-major view Dᵀ = B·Aᵀ: m = N, n = M_g, op(B) = T, op(A) = N.
  std::vector<cublasOperation_t> trans_b_, trans_a_;
  std::vector<int> m_, n_, k_, ld_b_, ld_a_, ld_d_, group_size_;
  std::vector<float> alpha_, beta_;
  testing::DeviceBuffer pointers_;  // [B pointers | A pointers | D pointers] of the groups
};

}  // namespace epifuse::bench

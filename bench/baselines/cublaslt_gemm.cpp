#include "bench/baselines/cublaslt_gemm.hpp"

#include <stdexcept>
#include <vector>

#include "bench/harness/timing.hpp"
#include "testing/device_buffer.hpp"

namespace epifuse::bench {
namespace {

constexpr std::size_t kWorkspaceBytes = 32u << 20;  // cuBLAS's recommendation for Hopper
constexpr int kCandidates = 4;

void check(cublasStatus_t s, const char* what) {
  if (s != CUBLAS_STATUS_SUCCESS) {
    throw std::runtime_error(std::string(what) + " failed: cuBLAS status " + std::to_string(static_cast<int>(s)));
  }
}

cudaDataType_t cuda_type(DType t) {
  switch (t) {
    case DType::kBF16: return CUDA_R_16BF;
    case DType::kFP16: return CUDA_R_16F;
    case DType::kFP32: return CUDA_R_32F;
  }
  return CUDA_R_32F;
}

}  // namespace

CublasLtGemm::CublasLtGemm(std::int64_t M, std::int64_t N, std::int64_t K, DType input, DType output,
                           LtEpilogue epilogue) {
  check(cublasLtCreate(&handle_), "cublasLtCreate");
  check(cublasLtMatmulDescCreate(&desc_, CUBLAS_COMPUTE_32F, CUDA_R_32F), "cublasLtMatmulDescCreate");
  const cublasOperation_t transpose = CUBLAS_OP_T, none = CUBLAS_OP_N;
  check(cublasLtMatmulDescSetAttribute(desc_, CUBLASLT_MATMUL_DESC_TRANSA, &transpose, sizeof(transpose)), "TRANSA");
  check(cublasLtMatmulDescSetAttribute(desc_, CUBLASLT_MATMUL_DESC_TRANSB, &none, sizeof(none)), "TRANSB");
  if (epilogue == LtEpilogue::kGeluBias) {
    const cublasLtEpilogue_t e = CUBLASLT_EPILOGUE_GELU_BIAS;
    check(cublasLtMatmulDescSetAttribute(desc_, CUBLASLT_MATMUL_DESC_EPILOGUE, &e, sizeof(e)), "EPILOGUE");
  }
  // Column-major views: B [N,K] row-major is K×N (ld K), A [M,K] is K×M, D [M,N] is N×M.
  check(cublasLtMatrixLayoutCreate(&a_layout_, cuda_type(input), K, N, K), "layout A");
  check(cublasLtMatrixLayoutCreate(&b_layout_, cuda_type(input), K, M, K), "layout B");
  check(cublasLtMatrixLayoutCreate(&d_layout_, cuda_type(output), N, M, N), "layout D");
  workspace_bytes_ = kWorkspaceBytes;
  EPIFUSE_CHECK_CUDA(cudaMalloc(&workspace_, workspace_bytes_));
}

CublasLtGemm::~CublasLtGemm() {
  if (workspace_) cudaFree(workspace_);
  if (d_layout_) cublasLtMatrixLayoutDestroy(d_layout_);
  if (b_layout_) cublasLtMatrixLayoutDestroy(b_layout_);
  if (a_layout_) cublasLtMatrixLayoutDestroy(a_layout_);
  if (desc_) cublasLtMatmulDescDestroy(desc_);
  if (handle_) cublasLtDestroy(handle_);
}

void CublasLtGemm::run(const void* A, const void* B, void* D, const void* bias, cudaStream_t stream) const {
  if (bias) {
    check(cublasLtMatmulDescSetAttribute(desc_, CUBLASLT_MATMUL_DESC_BIAS_POINTER, &bias, sizeof(bias)), "BIAS_POINTER");
  }
  const float alpha = 1.0f, beta = 0.0f;
  check(cublasLtMatmul(handle_, desc_, &alpha, B, a_layout_, A, b_layout_, &beta, D, d_layout_, D, d_layout_,
                       has_algo_ ? &algo_ : nullptr, workspace_, workspace_bytes_, stream),
        "cublasLtMatmul");
}

void CublasLtGemm::autotune(const void* A, const void* B, void* D, const void* bias) {
  autotune([this, A, B, D, bias](int, cudaStream_t stream) { run(A, B, D, bias, stream); }, TimingOptions{}, bias);
}

void CublasLtGemm::autotune(const std::function<void(int, cudaStream_t)>& run_set, const TimingOptions& measured,
                            const void* bias) {
  if (bias) {
    check(cublasLtMatmulDescSetAttribute(desc_, CUBLASLT_MATMUL_DESC_BIAS_POINTER, &bias, sizeof(bias)), "BIAS_POINTER");
  }
  cublasLtMatmulPreference_t pref;
  check(cublasLtMatmulPreferenceCreate(&pref), "preference");
  check(cublasLtMatmulPreferenceSetAttribute(pref, CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES, &workspace_bytes_,
                                             sizeof(workspace_bytes_)),
        "preference workspace");
  std::vector<cublasLtMatmulHeuristicResult_t> results(kCandidates);
  int found = 0;
  check(cublasLtMatmulAlgoGetHeuristic(handle_, desc_, a_layout_, b_layout_, d_layout_, d_layout_, pref, kCandidates,
                                       results.data(), &found),
        "cublasLtMatmulAlgoGetHeuristic");
  cublasLtMatmulPreferenceDestroy(pref);
  if (found == 0) throw std::runtime_error("cuBLASLt found no algorithm");

  double best_us = 0;
  int best = 0;
  has_algo_ = true;
  for (int i = 0; i < found; ++i) {
    algo_ = results[i].algo;
    const Timing t = time_interleaved({run_set}, {50.0, 2, 3, 20, measured.graphs, measured.operand_sets})[0];
    if (i == 0 || t.median_us < best_us) {
      best_us = t.median_us;
      best = i;
    }
  }
  algo_ = results[best].algo;
  algo_description_ = "heuristic #" + std::to_string(best) + " of " + std::to_string(found);
}

}  // namespace epifuse::bench

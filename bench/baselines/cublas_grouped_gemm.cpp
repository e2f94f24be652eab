#include "bench/baselines/cublas_grouped_gemm.hpp"

#include <algorithm>
#include <stdexcept>
#include <string>

namespace epifuse::bench {
namespace {

void check(cublasStatus_t s, const char* what) {
  if (s != CUBLAS_STATUS_SUCCESS) {
    throw std::runtime_error(std::string(what) + " failed: cuBLAS status " + std::to_string(static_cast<int>(s)));
  }
}

}  // namespace

CublasGroupedGemm::CublasGroupedGemm(const std::vector<std::int64_t>& rows, std::int64_t N, std::int64_t K,
                                     const void* a, const void* b, void* d) {
  check(cublasCreate(&handle_), "cublasCreate");
  std::vector<const void*> b_ptrs, a_ptrs;
  std::vector<void*> d_ptrs;
  std::int64_t offset = 0;
  for (std::size_t g = 0; g < rows.size(); offset += rows[g], ++g) {
    if (rows[g] == 0) continue;
    trans_b_.push_back(CUBLAS_OP_T);
    trans_a_.push_back(CUBLAS_OP_N);
    m_.push_back(static_cast<int>(N));
    n_.push_back(static_cast<int>(rows[g]));
    k_.push_back(static_cast<int>(K));
    ld_b_.push_back(static_cast<int>(K));
    ld_a_.push_back(static_cast<int>(K));
    ld_d_.push_back(static_cast<int>(N));
    group_size_.push_back(1);
    alpha_.push_back(1.0f);
    beta_.push_back(0.0f);
    b_ptrs.push_back(static_cast<const char*>(b) + static_cast<std::size_t>(g) * N * K * 2);
    a_ptrs.push_back(static_cast<const char*>(a) + static_cast<std::size_t>(offset) * K * 2);
    d_ptrs.push_back(static_cast<char*>(d) + static_cast<std::size_t>(offset) * N * 2);
  }
  const std::size_t groups = m_.size();
  std::vector<const void*> all(3 * groups);
  for (std::size_t g = 0; g < groups; ++g) {
    all[g] = b_ptrs[g];
    all[groups + g] = a_ptrs[g];
    all[2 * groups + g] = d_ptrs[g];
  }
  pointers_ = testing::DeviceBuffer(std::max<std::size_t>(all.size(), 1) * sizeof(void*), 0);
  if (!all.empty()) pointers_.upload(all.data(), all.size() * sizeof(void*));
}

CublasGroupedGemm::~CublasGroupedGemm() {
  if (handle_) cublasDestroy(handle_);
}

void CublasGroupedGemm::run(cudaStream_t stream) const {
  const int groups = static_cast<int>(m_.size());
  if (groups == 0) return;
  check(cublasSetStream(handle_, stream), "cublasSetStream");
  void* const* pointers = pointers_.as<void*>();
  const auto* inputs = reinterpret_cast<const void* const*>(pointers);
  check(cublasGemmGroupedBatchedEx(handle_, trans_b_.data(), trans_a_.data(), m_.data(), n_.data(), k_.data(),
                                   alpha_.data(), inputs, CUDA_R_16BF, ld_b_.data(), inputs + groups, CUDA_R_16BF,
                                   ld_a_.data(), beta_.data(), pointers + 2 * groups, CUDA_R_16BF, ld_d_.data(),
                                   groups, group_size_.data(), CUBLAS_COMPUTE_32F),
        "cublasGemmGroupedBatchedEx");
}

}  // namespace epifuse::bench

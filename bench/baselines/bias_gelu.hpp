// The second kernel of the unfused path: D = gelu_tanh(D + bias[n]) in place, bf16 or fp16,
// 16-byte accesses. The best separate epilogue we have: one read and one write of D.
#pragma once

#include <cstdint>

#include <cuda_runtime_api.h>

#include "epifuse/types.hpp"

namespace epifuse::bench {

void bias_gelu_inplace(void* d, DType dtype, std::int64_t M, std::int64_t N, std::int64_t ldd, const float* bias,
                       cudaStream_t stream);

}  // namespace epifuse::bench

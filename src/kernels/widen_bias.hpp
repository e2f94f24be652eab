// An fp32 copy of a 16-bit column bias: epifuse's GEMM kernels read their bias in fp32, and a bf16
// or fp16 model holds its nn.Linear bias in its own type. Widening is exact.
#pragma once

#include <cstdint>

#include <cuda_runtime_api.h>

#include "epifuse/status.hpp"
#include "epifuse/types.hpp"

namespace epifuse::detail {

// dst[i] = float(src[i]) for i < length; src holds `type` (bf16 or fp16) aligned to its element,
// dst is 4-byte aligned.
Status widen_bias(const void* src, DType type, std::int64_t length, float* dst, cudaStream_t stream);

}  // namespace epifuse::detail

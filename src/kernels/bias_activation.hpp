// The second half of a GEMM delegated to cuBLASLt with an epilogue of bias + activation that
// cuBLASLt cannot fuse (an fp32 column bias with a 16-bit D, or an activation it lacks):
// D = cast(act(alpha·acc + col_bias[n])) over cuBLASLt's fp32 product acc [M, N]. The product is
// fp32 so that D is rounded once, as epifuse's fused kernels round it.
#pragma once

#include <cstdint>

#include <cuda_runtime_api.h>

#include "epifuse/gemm.hpp"
#include "epifuse/status.hpp"

namespace epifuse::detail {

// product: [M, ldp] fp32, ldp a multiple of 4 >= N, 16-byte aligned. Reads args.epilogue's
// alpha, col_bias (fp32 or D's type) and activation; writes D [M, ldd] (bf16 or fp16).
Status bias_activation(const GemmArgs& args, const float* product, std::int64_t ldp, cudaStream_t stream);

}  // namespace epifuse::detail

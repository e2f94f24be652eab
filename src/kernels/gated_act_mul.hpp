// The second half of a delegated gated MLP: out = the gated math of the fp32 product
// h = x·Wᵀ [M, 2N] of x and the packed weight (packed rows as columns: blocks of 8 gate columns,
// then their 8 up columns), plus the packed fp32 bias when there is one. h is fp32 so that the
// output is rounded once, as the fused kernels round it.
#pragma once

#include <cstdint>

#include <cuda_runtime_api.h>

#include "epifuse/gated_mlp.hpp"
#include "epifuse/status.hpp"

namespace epifuse::detail {

// h: [M, 2N] fp32, row stride 2N, 16-byte aligned; out [M, ldo] of args.out_dtype; N a multiple
// of 8. Reads args.w.bias, activation, limit and scale.
Status gated_act_mul(const GatedMlpArgs& args, const float* h, cudaStream_t stream);

}  // namespace epifuse::detail

// The separate kernels of the unfused gated-MLP baselines, reading the [M, 2N] GEMM output h
// laid out as frameworks do: gate in columns [0, N), up in [N, 2N).
//   act_mul:      out = act(gate)·up                     one kernel (the best separate path)
//   act, then mul: a = act(gate); out = a·up             two kernels (eager PyTorch style)
// bf16/fp16, fp32 math, 16-byte accesses; N and the leading dimensions multiples of 8.
#pragma once

#include <cstdint>

#include <cuda_runtime_api.h>

#include "epifuse/gated_mlp.hpp"

namespace epifuse::bench {

void act_mul(const void* h, std::int64_t ldh, void* out, std::int64_t ldo, std::int64_t M, std::int64_t N,
             DType dtype, GatedActivation activation, cudaStream_t stream);

void act_only(const void* h, std::int64_t ldh, void* a, std::int64_t lda, std::int64_t M, std::int64_t N, DType dtype,
              GatedActivation activation, cudaStream_t stream);

void mul_only(const void* a, std::int64_t lda, const void* h, std::int64_t ldh, void* out, std::int64_t ldo,
              std::int64_t M, std::int64_t N, DType dtype, cudaStream_t stream);

}  // namespace epifuse::bench

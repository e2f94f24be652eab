// One thread per 4 columns of a row (one 16-byte load of the product), grid-stride over M·N/4
// groups with 64-bit indices. Decode-sized calls: a few hundred thousand elements at most.
#include "kernels/bias_activation.hpp"

#include <algorithm>
#include <string>

#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include "epilogue/activation.cuh"
#include "epilogue/floats.cuh"

namespace epifuse::detail {
namespace {

constexpr int kThreads = 256;
constexpr std::int64_t kMaxBlocks = 8192;

__device__ __forceinline__ float to_float(float v) { return v; }
__device__ __forceinline__ float to_float(__nv_bfloat16 v) { return __bfloat162float(v); }
__device__ __forceinline__ float to_float(__half v) { return __half2float(v); }

__device__ __forceinline__ void round_into(float v, __nv_bfloat16* out) { *out = __float2bfloat16_rn(v); }
__device__ __forceinline__ void round_into(float v, __half* out) { *out = __float2half_rn(v); }

template <class Out, class Bias>
__global__ void __launch_bounds__(kThreads) bias_activation_rows(const float* product, std::int64_t ldp,
                                                                 std::int64_t M, std::int64_t N, float alpha,
                                                                 const Bias* bias,
                                                                 device::ActivationProgram activation, Out* d,
                                                                 std::int64_t ldd) {
  const std::int64_t groups_per_row = (N + 3) / 4;
  const std::int64_t total = M * groups_per_row;
  for (std::int64_t i = blockIdx.x * static_cast<std::int64_t>(kThreads) + threadIdx.x; i < total;
       i += static_cast<std::int64_t>(gridDim.x) * kThreads) {
    const std::int64_t row = i / groups_per_row, column = 4 * (i % groups_per_row);
    const float4 acc = *reinterpret_cast<const float4*>(product + row * ldp + column);
    device::Floats<4> y{{acc.x, acc.y, acc.z, acc.w}};
#pragma unroll
    for (int k = 0; k < 4; ++k) {
      const float b = bias != nullptr && column + k < N ? to_float(bias[column + k]) : 0.0f;
      y[k] = fmaf(alpha, y[k], b);
    }
    device::activate(y, activation);
#pragma unroll
    for (int k = 0; k < 4; ++k) {
      if (column + k < N) round_into(y[k], d + row * ldd + column + k);
    }
  }
}

template <class Out, class Bias>
void launch(const GemmArgs& args, const float* product, std::int64_t ldp, unsigned grid, cudaStream_t stream) {
  const Epilogue& e = args.epilogue;
  bias_activation_rows<<<grid, kThreads, 0, stream>>>(
      product, ldp, args.M, args.N, e.alpha, static_cast<const Bias*>(e.col_bias),
      device::compile_activation(e.activation, e.leaky_slope, e.clamp_lo, e.clamp_hi), static_cast<Out*>(args.D),
      args.ldd);
}

template <class Out>
void launch_for_bias(const GemmArgs& args, const float* product, std::int64_t ldp, unsigned grid,
                     cudaStream_t stream) {
  if (args.epilogue.col_bias == nullptr || args.epilogue.col_bias_dtype == DType::kFP32) {
    launch<Out, float>(args, product, ldp, grid, stream);
  } else {
    launch<Out, Out>(args, product, ldp, grid, stream);  // a 16-bit bias has D's type (validated)
  }
}

}  // namespace

Status bias_activation(const GemmArgs& args, const float* product, std::int64_t ldp, cudaStream_t stream) {
  const std::int64_t total = args.M * ((args.N + 3) / 4);
  if (total == 0) return Status::success();
  const auto grid = static_cast<unsigned>(std::min((total + kThreads - 1) / kThreads, kMaxBlocks));
  if (args.d_dtype == DType::kBF16) {
    launch_for_bias<__nv_bfloat16>(args, product, ldp, grid, stream);
  } else if (args.d_dtype == DType::kFP16) {
    launch_for_bias<__half>(args, product, ldp, grid, stream);
  } else {
    return Status::internal("gemm: the bias + activation kernel after cuBLASLt takes a bf16 or fp16 D");
  }
  if (const cudaError_t err = cudaGetLastError(); err != cudaSuccess) {
    return Status::cuda_error(std::string("gemm: the bias + activation kernel after cuBLASLt: ") +
                              cudaGetErrorName(err) + " (" + cudaGetErrorString(err) + ")");
  }
  return Status::success();
}

}  // namespace epifuse::detail

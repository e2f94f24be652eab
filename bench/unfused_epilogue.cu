#include "bench/unfused_epilogue.hpp"

#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include "epilogue/activation.cuh"
#include "tests/support/device_buffer.hpp"

namespace epifuse::bench {
namespace {

template <class T>
struct Vec8 {
  T v[8];
};

template <class T>
__device__ float to_float(T x);
template <>
__device__ float to_float(__nv_bfloat16 x) { return __bfloat162float(x); }
template <>
__device__ float to_float(__half x) { return __half2float(x); }
template <class T>
__device__ T from_float(float x);
template <>
__device__ __nv_bfloat16 from_float(float x) { return __float2bfloat16_rn(x); }
template <>
__device__ __half from_float(float x) { return __float2half_rn(x); }

// One thread per 8 consecutive elements of a row (N % 8 == 0 and ldd % 8 == 0 keep them 16-byte aligned).
template <class T>
__global__ void bias_gelu_kernel(T* d, std::int64_t M, std::int64_t N, std::int64_t ldd, const float* bias) {
  const std::int64_t vectors_per_row = N / 8;
  const std::int64_t count = M * vectors_per_row;
  for (std::int64_t i = blockIdx.x * static_cast<std::int64_t>(blockDim.x) + threadIdx.x; i < count;
       i += static_cast<std::int64_t>(gridDim.x) * blockDim.x) {
    const std::int64_t m = i / vectors_per_row;
    const std::int64_t n = (i % vectors_per_row) * 8;
    auto* p = reinterpret_cast<Vec8<T>*>(d + m * ldd + n);
    Vec8<T> x = *p;
    const float4 b0 = *reinterpret_cast<const float4*>(bias + n);
    const float4 b1 = *reinterpret_cast<const float4*>(bias + n + 4);
    const float b[8] = {b0.x, b0.y, b0.z, b0.w, b1.x, b1.y, b1.z, b1.w};
#pragma unroll
    for (int j = 0; j < 8; ++j) x.v[j] = from_float<T>(device::gelu_tanh(to_float(x.v[j]) + b[j]));
    *p = x;
  }
}

}  // namespace

void bias_gelu_inplace(void* d, DType dtype, std::int64_t M, std::int64_t N, std::int64_t ldd, const float* bias,
                       cudaStream_t stream) {
  int device = 0, sms = 0;
  cudaGetDevice(&device);
  cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device);
  constexpr int kThreads = 256;
  const std::int64_t vectors = M * (N / 8);
  const int blocks = static_cast<int>(std::min<std::int64_t>((vectors + kThreads - 1) / kThreads, sms * 8LL));
  if (dtype == DType::kBF16) {
    bias_gelu_kernel<<<blocks, kThreads, 0, stream>>>(static_cast<__nv_bfloat16*>(d), M, N, ldd, bias);
  } else {
    bias_gelu_kernel<<<blocks, kThreads, 0, stream>>>(static_cast<__half*>(d), M, N, ldd, bias);
  }
  EPIFUSE_CHECK_CUDA(cudaGetLastError());
}

}  // namespace epifuse::bench

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

// Rows spread over blockIdx.y (grid-stride), 16-byte vectors of a row over blockIdx.x and the
// threads: 32-bit index math, coalesced loads. N % 8 == 0 and ldd % 8 == 0 keep vectors aligned.
template <class T>
__global__ void bias_gelu_kernel(T* d, std::int64_t M, int N, std::int64_t ldd, const float* bias) {
  const int vectors_per_row = N / 8;
  for (std::int64_t m = blockIdx.y; m < M; m += gridDim.y) {
    T* row = d + m * ldd;
    for (int v = blockIdx.x * blockDim.x + threadIdx.x; v < vectors_per_row; v += gridDim.x * blockDim.x) {
      auto* p = reinterpret_cast<Vec8<T>*>(row + 8 * v);
      Vec8<T> x = *p;
      const float4 b0 = __ldg(reinterpret_cast<const float4*>(bias) + 2 * v);
      const float4 b1 = __ldg(reinterpret_cast<const float4*>(bias) + 2 * v + 1);
      const float b[8] = {b0.x, b0.y, b0.z, b0.w, b1.x, b1.y, b1.z, b1.w};
#pragma unroll
      for (int j = 0; j < 8; ++j) x.v[j] = from_float<T>(device::gelu_tanh(to_float(x.v[j]) + b[j]));
      *p = x;
    }
  }
}

}  // namespace

void bias_gelu_inplace(void* d, DType dtype, std::int64_t M, std::int64_t N, std::int64_t ldd, const float* bias,
                       cudaStream_t stream) {
  constexpr int kThreads = 256;
  const int vectors_per_row = static_cast<int>(N / 8);
  const dim3 grid((vectors_per_row + kThreads - 1) / kThreads, static_cast<unsigned>(std::min<std::int64_t>(M, 65535)));
  if (dtype == DType::kBF16) {
    bias_gelu_kernel<<<grid, kThreads, 0, stream>>>(static_cast<__nv_bfloat16*>(d), M, static_cast<int>(N), ldd, bias);
  } else {
    bias_gelu_kernel<<<grid, kThreads, 0, stream>>>(static_cast<__half*>(d), M, static_cast<int>(N), ldd, bias);
  }
  EPIFUSE_CHECK_CUDA(cudaGetLastError());
}

}  // namespace epifuse::bench

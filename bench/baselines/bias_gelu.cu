#include "bench/baselines/bias_gelu.hpp"

#include <algorithm>

#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include "epilogue/activation.cuh"
#include "testing/device_buffer.hpp"

namespace epifuse::bench {
namespace {

template <class T>
struct alignas(16) Vec8 {
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

// Rows over blockIdx.y (grid-stride), each row's 16-byte vectors over blockIdx.x and the threads,
// two vectors per thread per step so that two loads are in flight: 32-bit index math, coalesced.
// N % 8 == 0 and ldd % 8 == 0 keep the vectors aligned.
template <class T>
__device__ __forceinline__ Vec8<T> bias_gelu_vector(Vec8<T> x, const float4* bias, int v) {
  const float4 b0 = __ldg(bias + 2 * v);
  const float4 b1 = __ldg(bias + 2 * v + 1);
  const float b[8] = {b0.x, b0.y, b0.z, b0.w, b1.x, b1.y, b1.z, b1.w};
#pragma unroll
  for (int j = 0; j < 8; ++j) x.v[j] = from_float<T>(device::gelu_tanh(to_float(x.v[j]) + b[j]));
  return x;
}

template <class T>
__global__ void bias_gelu_kernel(T* d, std::int64_t M, int N, std::int64_t ldd, const float* bias) {
  const int vectors_per_row = N / 8;
  const int stride = gridDim.x * blockDim.x;
  const auto* bias4 = reinterpret_cast<const float4*>(bias);
  for (std::int64_t m = blockIdx.y; m < M; m += gridDim.y) {
    auto* row = reinterpret_cast<Vec8<T>*>(d + m * ldd);
    int v = blockIdx.x * blockDim.x + threadIdx.x;
    for (; v + stride < vectors_per_row; v += 2 * stride) {
      const Vec8<T> x0 = row[v], x1 = row[v + stride];  // both loads in flight before any use
      row[v] = bias_gelu_vector(x0, bias4, v);
      row[v + stride] = bias_gelu_vector(x1, bias4, v + stride);
    }
    if (v < vectors_per_row) row[v] = bias_gelu_vector(row[v], bias4, v);
  }
}

}  // namespace

void bias_gelu_inplace(void* d, DType dtype, std::int64_t M, std::int64_t N, std::int64_t ldd, const float* bias,
                       cudaStream_t stream) {
  // About 8 resident blocks per SM in total: rows across blockIdx.y, a row split over blockIdx.x
  // only when there are too few rows to fill the GPU.
  int device = 0, sms = 0;
  EPIFUSE_CHECK_CUDA(cudaGetDevice(&device));
  EPIFUSE_CHECK_CUDA(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device));
  constexpr int kThreads = 256;
  const std::int64_t target_blocks = 8LL * sms;
  const int vectors_per_row = static_cast<int>(N / 8);
  const int max_blocks_per_row = (vectors_per_row + 2 * kThreads - 1) / (2 * kThreads);
  const int blocks_per_row =
      static_cast<int>(std::clamp<std::int64_t>((target_blocks + M - 1) / M, 1, max_blocks_per_row));
  const dim3 grid(blocks_per_row, static_cast<unsigned>(std::min<std::int64_t>(M, target_blocks)));
  if (dtype == DType::kBF16) {
    bias_gelu_kernel<<<grid, kThreads, 0, stream>>>(static_cast<__nv_bfloat16*>(d), M, static_cast<int>(N), ldd, bias);
  } else {
    bias_gelu_kernel<<<grid, kThreads, 0, stream>>>(static_cast<__half*>(d), M, static_cast<int>(N), ldd, bias);
  }
  EPIFUSE_CHECK_CUDA(cudaGetLastError());
}

}  // namespace epifuse::bench

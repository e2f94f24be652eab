#include "bench/baselines/act_mul.hpp"

#include <algorithm>

#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include "epilogue/activation.cuh"
#include "testing/device_buffer.hpp"

namespace epifuse::bench {
namespace {

// Each thread moves kUnroll 16-byte vectors of every input, all loads issued before any math, so
// that enough bytes are in flight to stream at full bandwidth. One row per blockIdx.y.
constexpr int kThreads = 256;
constexpr int kUnroll = 4;

struct alignas(16) Vec {
  uint4 bits;
};

template <class T>
__device__ __forceinline__ float2 unpack2(std::uint32_t w);
template <>
__device__ __forceinline__ float2 unpack2<__nv_bfloat16>(std::uint32_t w) {
  return __bfloat1622float2(*reinterpret_cast<__nv_bfloat162*>(&w));
}
template <>
__device__ __forceinline__ float2 unpack2<__half>(std::uint32_t w) {
  return __half22float2(*reinterpret_cast<__half2*>(&w));
}
template <class T>
__device__ __forceinline__ std::uint32_t pack2(float a, float b);
template <>
__device__ __forceinline__ std::uint32_t pack2<__nv_bfloat16>(float a, float b) {
  __nv_bfloat162 v = __floats2bfloat162_rn(a, b);
  return *reinterpret_cast<std::uint32_t*>(&v);
}
template <>
__device__ __forceinline__ std::uint32_t pack2<__half>(float a, float b) {
  __half2 v = __floats2half2_rn(a, b);
  return *reinterpret_cast<std::uint32_t*>(&v);
}

struct Eight {
  static constexpr int kElements = 8;
  float v[8];
  __device__ float& operator[](int i) { return v[i]; }
};

template <class T>
__device__ __forceinline__ Eight unpack8(uint4 u) {
  Eight e;
  const std::uint32_t w[4] = {u.x, u.y, u.z, u.w};
#pragma unroll
  for (int i = 0; i < 4; ++i) {
    const float2 f = unpack2<T>(w[i]);
    e.v[2 * i] = f.x;
    e.v[2 * i + 1] = f.y;
  }
  return e;
}
template <class T>
__device__ __forceinline__ uint4 pack8(const Eight& e) {
  return {pack2<T>(e.v[0], e.v[1]), pack2<T>(e.v[2], e.v[3]), pack2<T>(e.v[4], e.v[5]), pack2<T>(e.v[6], e.v[7])};
}

// kMode 0: out = act(a)·b;  1: out = act(a);  2: out = a·b.
template <class T, int kMode>
__global__ void __launch_bounds__(kThreads) elementwise_kernel(const uint4* a, std::int64_t lda_vec, const uint4* b,
                                                               std::int64_t ldb_vec, uint4* out, std::int64_t ldo_vec,
                                                               int vectors_per_row, std::int64_t M,
                                                               device::ActivationProgram program) {
  for (std::int64_t m = blockIdx.y; m < M; m += gridDim.y) {
    const int first = blockIdx.x * kThreads * kUnroll + threadIdx.x;
    uint4 va[kUnroll], vb[kUnroll];
#pragma unroll
    for (int u = 0; u < kUnroll; ++u) {
      const int v = first + u * kThreads;
      if (v < vectors_per_row) {
        va[u] = __ldcs(a + m * lda_vec + v);
        if constexpr (kMode != 1) vb[u] = __ldcs(b + m * ldb_vec + v);
      }
    }
#pragma unroll
    for (int u = 0; u < kUnroll; ++u) {
      const int v = first + u * kThreads;
      if (v >= vectors_per_row) continue;
      Eight x = unpack8<T>(va[u]);
      if constexpr (kMode != 2) device::activate(x, program);
      if constexpr (kMode != 1) {
        const Eight y = unpack8<T>(vb[u]);
#pragma unroll
        for (int i = 0; i < 8; ++i) x.v[i] *= y.v[i];
      }
      __stcs(out + m * ldo_vec + v, pack8<T>(x));
    }
  }
}

device::ActivationProgram program_for(GatedActivation a) {
  return device::compile_activation(gate_activation(a), 0.0f, 0.0f, 0.0f);
}

template <int kMode>
void launch(const void* a, std::int64_t lda, const void* b, std::int64_t ldb, void* out, std::int64_t ldo,
            std::int64_t M, std::int64_t N, DType dtype, GatedActivation activation, cudaStream_t stream) {
  if (M == 0) return;
  const int vectors_per_row = static_cast<int>(N / 8);
  const dim3 grid((vectors_per_row + kThreads * kUnroll - 1) / (kThreads * kUnroll),
                  static_cast<unsigned>(std::min<std::int64_t>(M, 65535)));
  const auto* av = static_cast<const uint4*>(a);
  const auto* bv = static_cast<const uint4*>(b);
  auto* ov = static_cast<uint4*>(out);
  const device::ActivationProgram program = program_for(activation);
  if (dtype == DType::kBF16) {
    elementwise_kernel<__nv_bfloat16, kMode><<<grid, kThreads, 0, stream>>>(av, lda / 8, bv, ldb / 8, ov, ldo / 8,
                                                                             vectors_per_row, M, program);
  } else {
    elementwise_kernel<__half, kMode><<<grid, kThreads, 0, stream>>>(av, lda / 8, bv, ldb / 8, ov, ldo / 8,
                                                                      vectors_per_row, M, program);
  }
  EPIFUSE_CHECK_CUDA(cudaGetLastError());
}

}  // namespace

void act_mul(const void* h, std::int64_t ldh, void* out, std::int64_t ldo, std::int64_t M, std::int64_t N,
             DType dtype, GatedActivation activation, cudaStream_t stream) {
  const void* up = static_cast<const char*>(h) + N * dtype_bytes(dtype);
  launch<0>(h, ldh, up, ldh, out, ldo, M, N, dtype, activation, stream);
}

void act_only(const void* h, std::int64_t ldh, void* a, std::int64_t lda, std::int64_t M, std::int64_t N, DType dtype,
              GatedActivation activation, cudaStream_t stream) {
  launch<1>(h, ldh, nullptr, 0, a, lda, M, N, dtype, activation, stream);
}

void mul_only(const void* a, std::int64_t lda, const void* h, std::int64_t ldh, void* out, std::int64_t ldo,
              std::int64_t M, std::int64_t N, DType dtype, cudaStream_t stream) {
  const void* up = static_cast<const char*>(h) + N * dtype_bytes(dtype);
  launch<2>(a, lda, up, ldh, out, ldo, M, N, dtype, GatedActivation::kSwiGLU, stream);
}

}  // namespace epifuse::bench

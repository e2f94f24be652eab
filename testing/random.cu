#include "testing/random.hpp"

#include <cstdio>
#include <cstdlib>
#include <random>
#include <string>

#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include "testing/device_buffer.hpp"

namespace epifuse::testing {
namespace {

__host__ __device__ std::uint64_t splitmix64(std::uint64_t x) {
  x += 0x9e3779b97f4a7c15ull;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
  return x ^ (x >> 31);
}

template <class T>
__device__ T from_float(float v);
template <>
__device__ float from_float<float>(float v) { return v; }
template <>
__device__ __nv_bfloat16 from_float<__nv_bfloat16>(float v) { return __float2bfloat16_rn(v); }
template <>
__device__ __half from_float<__half>(float v) { return __float2half_rn(v); }

template <class T>
__global__ void fill_uniform_kernel(T* data, std::int64_t rows, std::int64_t cols, std::int64_t ld,
                                    std::uint64_t seed, float lo, float hi) {
  const std::int64_t count = rows * cols;
  for (std::int64_t i = blockIdx.x * static_cast<std::int64_t>(blockDim.x) + threadIdx.x; i < count;
       i += static_cast<std::int64_t>(gridDim.x) * blockDim.x) {
    const std::uint64_t bits = splitmix64(seed ^ splitmix64(static_cast<std::uint64_t>(i)));
    const float unit = static_cast<float>(bits >> 40) * (1.0f / 16777216.0f);  // [0, 1), 24 bits
    data[(i / cols) * ld + i % cols] = from_float<T>(lo + (hi - lo) * unit);
  }
}

}  // namespace

std::uint64_t run_seed() {
  static const std::uint64_t seed = [] {
    std::uint64_t s;
    if (const char* env = std::getenv("EPIFUSE_SEED")) {
      s = std::stoull(env);
    } else {
      std::random_device rd;
      s = (static_cast<std::uint64_t>(rd()) << 32) ^ rd();
    }
    std::fprintf(stderr, "[epifuse] random seed %llu (EPIFUSE_SEED=%llu replays this run)\n",
                 static_cast<unsigned long long>(s), static_cast<unsigned long long>(s));
    return s;
  }();
  return seed;
}

std::uint64_t derive_seed(std::uint64_t seed, std::uint64_t stream) { return splitmix64(seed ^ splitmix64(stream)); }

void fill_uniform(void* data, DType dtype, std::int64_t rows, std::int64_t cols, std::int64_t ld,
                  std::uint64_t seed, float lo, float hi, cudaStream_t stream) {
  if (rows == 0 || cols == 0) return;
  constexpr int kThreads = 256;
  const std::int64_t blocks = std::min<std::int64_t>((rows * cols + kThreads - 1) / kThreads, 65536);
  switch (dtype) {
    case DType::kBF16:
      fill_uniform_kernel<<<blocks, kThreads, 0, stream>>>(static_cast<__nv_bfloat16*>(data), rows, cols, ld, seed,
                                                           lo, hi);
      break;
    case DType::kFP16:
      fill_uniform_kernel<<<blocks, kThreads, 0, stream>>>(static_cast<__half*>(data), rows, cols, ld, seed, lo, hi);
      break;
    case DType::kFP32:
      fill_uniform_kernel<<<blocks, kThreads, 0, stream>>>(static_cast<float*>(data), rows, cols, ld, seed, lo, hi);
      break;
  }
  EPIFUSE_CHECK_CUDA(cudaGetLastError());
}

}  // namespace epifuse::testing

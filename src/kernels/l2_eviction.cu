// Grid-stride 16-byte loads; the sum is stored only where it matches a value no buffer of zeros
// yields, which keeps the loads from being optimised away without writing anything.
#include "kernels/l2_eviction.hpp"

#include <algorithm>
#include <cstdint>

namespace epifuse::detail {
namespace {

constexpr int kThreads = 512;

__global__ void __launch_bounds__(kThreads) read_through_l2(const uint4* buffer, std::int64_t vectors,
                                                            unsigned* sink) {
  unsigned sum = 0;
  for (std::int64_t i = blockIdx.x * static_cast<std::int64_t>(kThreads) + threadIdx.x; i < vectors;
       i += static_cast<std::int64_t>(gridDim.x) * kThreads) {
    const uint4 v = buffer[i];
    sum += v.x ^ v.y ^ v.z ^ v.w;
  }
  if (sum == 0x9e3779b9u) *sink = sum;
}

}  // namespace

bool evict_l2(void* buffer, std::size_t bytes, cudaStream_t stream) {
  int device = 0, sms = 0;
  if (cudaGetDevice(&device) != cudaSuccess ||
      cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device) != cudaSuccess) {
    cudaGetLastError();
    return false;
  }
  const auto vectors = static_cast<std::int64_t>(bytes / 16);
  const std::int64_t blocks =
      std::min<std::int64_t>(4 * static_cast<std::int64_t>(sms), (vectors + kThreads - 1) / kThreads);
  if (blocks == 0) return true;
  read_through_l2<<<static_cast<unsigned>(blocks), kThreads, 0, stream>>>(
      static_cast<const uint4*>(buffer), vectors, static_cast<unsigned*>(buffer));
  return cudaGetLastError() == cudaSuccess;
}

std::size_t l2_eviction_bytes() {
  int device = 0, l2_bytes = 0;
  if (cudaGetDevice(&device) != cudaSuccess ||
      cudaDeviceGetAttribute(&l2_bytes, cudaDevAttrL2CacheSize, device) != cudaSuccess) {
    cudaGetLastError();
    return 0;
  }
  return 2 * static_cast<std::size_t>(l2_bytes);
}

}  // namespace epifuse::detail

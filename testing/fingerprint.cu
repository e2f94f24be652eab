// DeviceBuffer::fingerprint: XOR over 8-byte words of a hash of (word, position), so the order in
// which threads combine them does not matter and any changed byte changes the result.
#include <cstdint>

#include "testing/device_buffer.hpp"

namespace epifuse::testing {
namespace {

__device__ std::uint64_t mix(std::uint64_t x) {
  x ^= x >> 33;
  x *= 0xff51afd7ed558ccdull;
  x ^= x >> 33;
  x *= 0xc4ceb9fe1a85ec53ull;
  return x ^ (x >> 33);
}

__global__ void fingerprint_kernel(const unsigned char* data, std::size_t bytes, unsigned long long* out) {
  std::uint64_t acc = 0;
  const std::size_t words = (bytes + 7) / 8;
  for (std::size_t w = blockIdx.x * static_cast<std::size_t>(blockDim.x) + threadIdx.x; w < words;
       w += static_cast<std::size_t>(gridDim.x) * blockDim.x) {
    std::uint64_t word = 0;
    for (int b = 0; b < 8 && w * 8 + b < bytes; ++b) word |= static_cast<std::uint64_t>(data[w * 8 + b]) << (8 * b);
    acc ^= mix(word ^ mix(w + 1));
  }
  atomicXor(out, static_cast<unsigned long long>(acc));
}

}  // namespace

std::uint64_t DeviceBuffer::fingerprint() const {
  unsigned long long* sum = nullptr;
  EPIFUSE_CHECK_CUDA(cudaMalloc(&sum, sizeof(*sum)));
  EPIFUSE_CHECK_CUDA(cudaMemset(sum, 0, sizeof(*sum)));
  fingerprint_kernel<<<1024, 256>>>(static_cast<const unsigned char*>(data_), bytes_, sum);
  EPIFUSE_CHECK_CUDA(cudaGetLastError());
  unsigned long long host = 0;
  EPIFUSE_CHECK_CUDA(cudaMemcpy(&host, sum, sizeof(host), cudaMemcpyDeviceToHost));
  EPIFUSE_CHECK_CUDA(cudaFree(sum));
  return host;
}

}  // namespace epifuse::testing

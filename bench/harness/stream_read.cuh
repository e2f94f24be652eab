// The streaming read behind the bench's read-bandwidth ceiling (ceilings.cu) and the probes that
// compare a kernel with a plain read of the same bytes.
#pragma once

#include <cuda_runtime.h>

#include <cstddef>

namespace epifuse::bench {

// Each thread sums 16-byte loads; one word per block is written so the loads stay live.
__global__ inline void stream_read_kernel(const uint4* data, std::size_t count, unsigned* sink) {
  unsigned acc = 0;
  for (std::size_t i = blockIdx.x * static_cast<std::size_t>(blockDim.x) + threadIdx.x; i < count;
       i += static_cast<std::size_t>(gridDim.x) * blockDim.x) {
    const uint4 v = __ldcs(data + i);
    acc ^= v.x ^ v.y ^ v.z ^ v.w;
  }
  if (acc == 0x12345678u) sink[blockIdx.x] = acc;
}

}  // namespace epifuse::bench

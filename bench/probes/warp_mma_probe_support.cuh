// What the warp-mma probes share: a failing CUDA call ends the probe, small random bf16 operands,
// the mean time of launches back to back, and the streaming-read bandwidth they report against.
#pragma once

#include <cuda_bf16.h>

#include <algorithm>
#include <cstddef>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <string>
#include <utility>
#include <vector>

#include "bench/harness/stream_read.cuh"

#define PROBE_CHECK(call)                                                      \
  do {                                                                         \
    if (const cudaError_t err = (call); err != cudaSuccess) {                  \
      std::fprintf(stderr, "%s failed: %s\n", #call, cudaGetErrorString(err)); \
      std::exit(1);                                                            \
    }                                                                          \
  } while (0)

namespace epifuse::bench::probes {

// Values k/4096 - 1/32 for k in [0, 256) from a hash of the index: products of two are exact in fp32.
__global__ inline void fill(__nv_bfloat16* p, std::size_t n, unsigned seed) {
  for (std::size_t i = blockIdx.x * static_cast<std::size_t>(blockDim.x) + threadIdx.x; i < n;
       i += static_cast<std::size_t>(gridDim.x) * blockDim.x) {
    unsigned h = static_cast<unsigned>(i) * 2654435761u ^ seed;
    h ^= h >> 13;
    h *= 0x5bd1e995u;
    p[i] = __float2bfloat16(((h >> 8) & 0xff) / 4096.0f - 1.0f / 32.0f);
  }
}

// The mean µs of `reps` launches issued back to back between two events on the default stream.
inline double mean_us(const std::function<void(int)>& launch, int reps) {
  cudaEvent_t start, stop;
  PROBE_CHECK(cudaEventCreate(&start));
  PROBE_CHECK(cudaEventCreate(&stop));
  PROBE_CHECK(cudaEventRecord(start));
  for (int r = 0; r < reps; ++r) launch(r);
  PROBE_CHECK(cudaEventRecord(stop));
  PROBE_CHECK(cudaEventSynchronize(stop));
  float ms = 0.0f;
  PROBE_CHECK(cudaEventElapsedTime(&ms, start, stop));
  cudaEventDestroy(start);
  cudaEventDestroy(stop);
  return ms * 1000.0 / reps;
}

// The streaming-read kernel's grid for this device (`sms` SMs).
inline int read_blocks(int sms) { return std::min(sms * 8, 4096); }

// GB/s of a 2 GiB streaming read: the median of 9 means of 4 reads. `sink` holds 4096 words.
inline double read_bandwidth_gbps(int sms, unsigned* sink) {
  const std::size_t bytes = std::size_t{2} << 30;
  void* src = nullptr;
  PROBE_CHECK(cudaMalloc(&src, bytes));
  PROBE_CHECK(cudaMemset(src, 0, bytes));
  auto read = [&](int) {
    stream_read_kernel<<<read_blocks(sms), 256>>>(static_cast<const uint4*>(src), bytes / 16, sink);
  };
  std::vector<double> t;
  for (int i = 0; i < 9; ++i) t.push_back(mean_us(read, 4));
  std::sort(t.begin(), t.end());
  cudaFree(src);
  return bytes / (t[4] * 1e3);
}

// Device 0 as the probes report it: SMs, properties and the streaming-read bandwidth, with the read
// kernel's sink (4096 words) and grid.
struct ProbeDevice {
  int sms = 0;
  cudaDeviceProp prop{};
  unsigned* sink = nullptr;
  int read_blocks = 0;
  double read_gbps = 0.0;
};

inline ProbeDevice probe_device() {
  ProbeDevice d;
  PROBE_CHECK(cudaDeviceGetAttribute(&d.sms, cudaDevAttrMultiProcessorCount, 0));
  PROBE_CHECK(cudaGetDeviceProperties(&d.prop, 0));
  PROBE_CHECK(cudaMalloc(&d.sink, 4096 * sizeof(unsigned)));
  d.read_blocks = read_blocks(d.sms);
  d.read_gbps = read_bandwidth_gbps(d.sms, d.sink);
  return d;
}

// An "NxK" argument whose N and K are multiples of the given ones.
inline bool parse_shape(const char* arg, long n_multiple, long k_multiple, std::vector<std::pair<long, long>>* shapes) {
  long n = 0, k = 0;
  if (std::sscanf(arg, "%ldx%ld", &n, &k) != 2 || n <= 0 || k <= 0 || n % n_multiple != 0 || k % k_multiple != 0) {
    return false;
  }
  shapes->emplace_back(n, k);
  return true;
}

}  // namespace epifuse::bench::probes

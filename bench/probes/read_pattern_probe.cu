// How fast decode-sized weights can be read, by access pattern (issue 9 §3, issue 11's T <= 256):
// the warp-mma kernels stream weight rows straight into registers and reach 78-90 % of the
// streaming-read bandwidth on 290-470 MB of MoE experts, where the CUTLASS 128x32 kernel (TMA into
// a shared-memory ring) reaches about the same. This probe times reads of the same bytes, no math:
//   stream    the bench's streaming read (grid-stride 16-byte loads, 8 CTAs of 256 threads per SM);
//   fragment  the warp-mma pairs CTA's loads (32 rows, 4 warps sharing the K loop in 64-element
//             steps, 4 steps a round, each load 16 bytes of 8 rows, the K loop rotated);
//   bulk      cp.async.bulk copies of each CTA's 32 rows into a ring of shared-memory stages
//             (one producer thread, 4 consumer warps), one CTA per 32 rows, or persistent CTAs
//             (as many as fit on an SM) walking the 32-row blocks.
// Each weight is rotated over copies of at least 1 GiB in all; the mean of 8 reads back to back,
// median of 9.
//   epifuse-read-pattern-probe [ROWSxK ...]   (default: MoE and dense decode weights of 33-940 MB)
#include <cuda_bf16.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <functional>
#include <vector>

#include "bench/probes/warp_mma_probe_support.cuh"

namespace {

using epifuse::bench::probes::mean_us;
using epifuse::bench::probes::ProbeDevice;

constexpr int kBlockRows = 32;  // rows per CTA (the warp-mma pairs CTA's two blocks of 16)

__device__ __forceinline__ uint4 load_streaming(const void* p) {
  uint4 v;
  asm volatile("ld.global.nc.L1::no_allocate.L2::256B.v4.u32 {%0,%1,%2,%3}, [%4];\n"
               : "=r"(v.x), "=r"(v.y), "=r"(v.z), "=r"(v.w)
               : "l"(p));
  return v;
}

// The warp-mma pairs CTA's weight loads without the mma: lane (g, t) reads 16 bytes of rows g and
// g + 8 of each block at column 64·step + 32c + 8t.
__global__ void __launch_bounds__(128) fragment_read(const __nv_bfloat16* w, std::int64_t K, unsigned* sink) {
  constexpr int kWarps = 4, kUnroll = 4, kGroups = 2;
  const int lane = threadIdx.x % 32, warp = threadIdx.x / 32, g = lane / 4, t = lane % 4;
  const int count = static_cast<int>(K / 64);
  const int rotation = static_cast<int>(blockIdx.x * 37ull % count);
  const __nv_bfloat16* rows = w + (static_cast<std::int64_t>(blockIdx.x) * kBlockRows + g) * K + 8 * t;
  unsigned acc = 0;
  auto at = [&](int i, int r, int c) {
    const int step = i + rotation < count ? i + rotation : i + rotation - count;
    return rows + r * 16 * K + step * 64 + 32 * c;
  };
  int first = warp;
  // Whole rounds without predicates, so that all kUnroll steps' loads are in flight together.
  for (; first + kWarps * (kUnroll - 1) < count; first += kWarps * kUnroll) {
    uint4 v[kUnroll][kGroups][2][2];
#pragma unroll
    for (int u = 0; u < kUnroll; ++u)
#pragma unroll
      for (int r = 0; r < kGroups; ++r)
#pragma unroll
        for (int c = 0; c < 2; ++c) {
          v[u][r][c][0] = load_streaming(at(first + u * kWarps, r, c));
          v[u][r][c][1] = load_streaming(at(first + u * kWarps, r, c) + 8 * K);
        }
#pragma unroll
    for (int u = 0; u < kUnroll; ++u)
#pragma unroll
      for (int r = 0; r < kGroups; ++r)
#pragma unroll
        for (int c = 0; c < 2; ++c)
#pragma unroll
          for (int h = 0; h < 2; ++h) acc ^= v[u][r][c][h].x ^ v[u][r][c][h].y ^ v[u][r][c][h].z ^ v[u][r][c][h].w;
  }
  for (; first < count; first += kWarps) {
#pragma unroll
    for (int r = 0; r < kGroups; ++r)
#pragma unroll
      for (int c = 0; c < 2; ++c)
#pragma unroll
        for (int h = 0; h < 2; ++h) {
          const uint4 v = load_streaming(at(first, r, c) + h * 8 * K);
          acc ^= v.x ^ v.y ^ v.z ^ v.w;
        }
  }
  if (acc == 0x12345678u) sink[blockIdx.x % 4096] = acc;
}

__device__ __forceinline__ std::uint32_t smem_address(const void* p) {
  return static_cast<std::uint32_t>(__cvta_generic_to_shared(p));
}

__device__ __forceinline__ void barrier_wait(const std::uint64_t* bar, unsigned parity) {
  std::uint32_t done = 0;
  do {
    asm volatile(
        "{\n .reg .pred p;\n mbarrier.try_wait.parity.shared::cta.b64 p, [%1], %2;\n selp.u32 %0, 1, 0, p;\n}\n"
        : "=r"(done)
        : "r"(smem_address(bar)), "r"(parity)
        : "memory");
  } while (!done);
}

// Each CTA streams its 32-row blocks (one, or every gridDim.x-th where persistent) through kStages
// stages of kChunk bytes per row: one thread issues a stage's 32 bulk copies once the consumers
// have released it; each consumer warp reads one 16-byte word per lane of its 8 rows' chunks.
template <int kChunk, int kStages>
__global__ void __launch_bounds__(160) bulk_read(const std::uint8_t* w, std::int64_t row_bytes, std::int64_t blocks,
                                                 bool persistent, unsigned* sink) {
  constexpr int kConsumers = 4;
  extern __shared__ __align__(128) std::uint8_t ring[];  // [kStages][kBlockRows][kChunk]
  __shared__ __align__(8) std::uint64_t full[kStages], empty[kStages];
  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  if (threadIdx.x == 0) {
    for (int s = 0; s < kStages; ++s) {
      asm volatile("mbarrier.init.shared::cta.b64 [%0], 1;\n" ::"r"(smem_address(&full[s])));
      asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;\n" ::"r"(smem_address(&empty[s])), "r"(kConsumers));
    }
    asm volatile("fence.mbarrier_init.release.cluster;\n" ::: "memory");
  }
  __syncthreads();
  const std::int64_t chunks = (row_bytes + kChunk - 1) / kChunk;
  const std::int64_t stride = persistent ? gridDim.x : blocks;
  unsigned acc = 0;
  std::int64_t use = 0;  // chunks through the ring so far: stage and phase
  for (std::int64_t b = blockIdx.x; b < blocks; b += stride) {
    const std::uint8_t* base = w + b * kBlockRows * row_bytes;
    for (std::int64_t c = 0; c < chunks; ++c, ++use) {
      const int s = static_cast<int>(use % kStages);
      const unsigned phase = static_cast<unsigned>(use / kStages) & 1u;
      if (warp == kConsumers) {
        if (lane == 0) {
          if (use >= kStages) barrier_wait(&empty[s], phase ^ 1u);
          const int bytes = static_cast<int>(min(static_cast<std::int64_t>(kChunk), row_bytes - c * kChunk));
          asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;\n" ::"r"(smem_address(&full[s])),
                       "r"(bytes * kBlockRows)
                       : "memory");
          for (int r = 0; r < kBlockRows; ++r) {
            asm volatile(
                "cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1], %2, [%3];\n" ::"r"(
                    smem_address(ring + (s * kBlockRows + r) * kChunk)),
                "l"(base + r * row_bytes + c * kChunk), "r"(bytes), "r"(smem_address(&full[s]))
                : "memory");
          }
        }
      } else {
        barrier_wait(&full[s], phase);
        const uint4 v =
            *reinterpret_cast<const uint4*>(ring + (s * kBlockRows + warp * 8 + lane / 4) * kChunk + (lane % 4) * 16);
        acc ^= v.x ^ v.y ^ v.z ^ v.w;
        __syncwarp();
        if (lane == 0) asm volatile("mbarrier.arrive.shared::cta.b64 _, [%0];\n" ::"r"(smem_address(&empty[s])) : "memory");
      }
    }
  }
  if (acc == 0x12345678u) sink[blockIdx.x % 4096] = acc;
}

struct Weight {
  long rows, K;
};

// The median of 9 means of 8 launches back to back.
double median_us(const std::function<void(int)>& launch) {
  std::vector<double> t;
  for (int i = 0; i < 9; ++i) t.push_back(mean_us(launch, 8));
  PROBE_CHECK(cudaGetLastError());
  std::sort(t.begin(), t.end());
  return t[4];
}

template <int kChunk, int kStages>
void time_bulk(const ProbeDevice& d, const std::vector<std::uint8_t*>& copies, const Weight& wt, double bytes,
               bool persistent) {
  constexpr int kSmem = kChunk * kStages * kBlockRows;
  auto kernel = bulk_read<kChunk, kStages>;
  PROBE_CHECK(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, kSmem));
  int per_sm = 0;
  PROBE_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, kernel, 160, kSmem));
  const long blocks = wt.rows / kBlockRows;
  const long grid = persistent ? std::min<long>(blocks, static_cast<long>(per_sm) * d.sms) : blocks;
  auto launch = [&](int r) {
    kernel<<<grid, 160, kSmem>>>(copies[r % copies.size()], wt.K * 2, blocks, persistent, d.sink);
  };
  const double us = median_us(launch);
  std::printf("%7ldx%-6ld %8.1f MB  bulk %4dB x%d %-10s (%d/SM) %8.1f us %7.1f GB/s %5.1f %% of read\n", wt.rows, wt.K,
              bytes / 1e6, kChunk, kStages, persistent ? "persistent" : "per-block", per_sm, us, bytes / (us * 1e3),
              100.0 * bytes / (us * 1e3) / d.read_gbps);
}

}  // namespace

int main(int argc, char** argv) {
  std::vector<Weight> weights;
  for (int i = 1; i < argc; ++i) {
    long rows = 0, K = 0;
    if (std::sscanf(argv[i], "%ldx%ld", &rows, &K) != 2 || rows % kBlockRows != 0 || K % 64 != 0) {
      std::fprintf(stderr, "'%s': ROWSxK with ROWS a multiple of 32 and K of 64\n", argv[i]);
      return 2;
    }
    weights.push_back({rows, K});
  }
  if (weights.empty()) {
    // Packed gate/up rows of the experts one token touches (Qwen3-30B-A3B, Qwen2-57B-A14B,
    // DeepSeek-V3, Mixtral-8x7B) and dense weights of 33-940 MB (Llama-3 8B and 70B MLPs).
    weights = {{12288, 2048}, {40960, 3584}, {32768, 7168}, {57344, 4096},
               {4096, 4096},  {14336, 4096}, {28672, 4096}, {57344, 8192}};
  }
  const ProbeDevice d = epifuse::bench::probes::probe_device();
  std::printf("device %s, %d SMs, streaming read %.1f GB/s\n", d.prop.name, d.sms, d.read_gbps);
  for (const Weight& wt : weights) {
    const double bytes = 2.0 * wt.rows * wt.K;
    const int n = static_cast<int>(std::min(8.0, std::max(1.0, (1 << 30) / bytes + 1)));
    std::vector<std::uint8_t*> copies(n);
    for (auto& p : copies) {
      PROBE_CHECK(cudaMalloc(&p, static_cast<std::size_t>(bytes)));
      PROBE_CHECK(cudaMemset(p, 1, static_cast<std::size_t>(bytes)));
    }
    auto report = [&](const char* what, double us) {
      std::printf("%7ldx%-6ld %8.1f MB  %-34s %8.1f us %7.1f GB/s %5.1f %% of read\n", wt.rows, wt.K, bytes / 1e6, what,
                  us, bytes / (us * 1e3), 100.0 * bytes / (us * 1e3) / d.read_gbps);
    };
    report("stream", median_us([&](int r) {
             epifuse::bench::stream_read_kernel<<<d.read_blocks, 256>>>(
                 reinterpret_cast<const uint4*>(copies[r % n]), static_cast<std::size_t>(bytes) / 16, d.sink);
           }));
    report("fragment (warp-mma pairs loads)", median_us([&](int r) {
             fragment_read<<<wt.rows / kBlockRows, 128>>>(reinterpret_cast<const __nv_bfloat16*>(copies[r % n]), wt.K,
                                                          d.sink);
           }));
    time_bulk<512, 4>(d, copies, wt, bytes, false);
    time_bulk<512, 4>(d, copies, wt, bytes, true);
    time_bulk<1024, 4>(d, copies, wt, bytes, false);
    time_bulk<1024, 4>(d, copies, wt, bytes, true);
    time_bulk<256, 8>(d, copies, wt, bytes, false);
    for (auto* p : copies) cudaFree(p);
  }
  return 0;
}

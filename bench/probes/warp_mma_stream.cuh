// An experiment of epifuse-warp-mma-probe, not in the library: the warp-mma gated kernel's K loop
// (kernels/sm90/warp_mma_mainloop.cuh) with its weight stream through shared memory instead of
// registers, in persistent CTAs. Each lane copies its own 16-byte fragments (cp.async) kStages
// steps ahead and reads back only what it copied, so no barrier guards the ring and the bytes in
// flight hold no registers; each CTA streams every gridDim.x-th group of blocks, and the next
// group's first steps are in flight while its warps meet on the current one. Whole K per CTA,
// up to 8 tokens. It sums in the register kernel's order (same warps, same rotated K start, no
// cluster): the probe checks that their outputs match bit for bit.
// bench/results/moe/decode-read-patterns/stream-kernel/README.md has what it measured.
#pragma once

#include <cuda_runtime_api.h>

#include <cstdint>

#include "kernels/sm90/warp_mma_mainloop.cuh"

namespace epifuse::bench::probes::warp_mma_stream {

using epifuse::kernels::sm90::warp_mma::groups_of;
using epifuse::kernels::sm90::warp_mma::kBlockRows;
using epifuse::kernels::sm90::warp_mma::kStepK;
using epifuse::kernels::sm90::warp_mma::l2_evict_unchanged;
using epifuse::kernels::sm90::warp_mma::Mainloop;
using epifuse::kernels::sm90::warp_mma::mma_16x8x16;
using epifuse::kernels::sm90::warp_mma::Variant;
using epifuse::kernels::sm90::warp_mma::warps_of;

// cp.async of one 16-byte weight fragment into shared memory, zero-filled where `valid` is false
// (then `from` must still be a mapped address; nothing is read from it).
__device__ __forceinline__ void copy_weight(void* to, const void* from, bool valid, std::uint64_t policy) {
  const unsigned shared = static_cast<unsigned>(__cvta_generic_to_shared(to));
  asm volatile("cp.async.cg.shared.global.L2::cache_hint.L2::256B [%0], [%1], 16, %2, %3;\n" ::"r"(shared), "l"(from),
               "r"(valid ? 16 : 0), "l"(policy)
               : "memory");
}

__device__ __forceinline__ void copy_x(void* to, const void* from, bool valid) {
  const unsigned shared = static_cast<unsigned>(__cvta_generic_to_shared(to));
  asm volatile("cp.async.ca.shared.global [%0], [%1], 16, %2;\n" ::"r"(shared), "l"(from), "r"(valid ? 16 : 0)
               : "memory");
}

// Shared memory of the ring: per lane and step 16-byte fragments, 4 of weight per block
// of 16 rows and 2 of x.
constexpr int ring_bytes(int warps, int groups, int stages) { return stages * warps * (4 * groups + 2) * 32 * 16; }

// A persistent CTA's stream over `groups` groups of kGroups blocks (first_group, then every
// group_stride-th), whole K, up to 8 tokens: each warp's cp.async ring runs on across the groups,
// so the next group's first steps are in flight while the warps meet on the current one. A
// group's sums are met in shared memory after one CTA barrier and stored by one warp, in turn.
template <class Element, int kWarps, int kGroups, class Store, int kStages>
__device__ __forceinline__ void stream_groups(const Mainloop& p, const typename Store::Params& store,
                                              std::int64_t first_group, std::int64_t group_stride,
                                              std::int64_t groups, std::uint64_t seed = 0) {
  const int lane = threadIdx.x % 32, warp = threadIdx.x / 32;
  const int g = lane / 4, t = lane % 4;
  const Element* w = static_cast<const Element*>(p.w);
  const Element* x = static_cast<const Element*>(p.x);
  const int count = static_cast<int>((p.K + kStepK - 1) / kStepK);
  const int my_steps = count > warp ? (count - warp + kWarps - 1) / kWarps : 0;
  const int per_group = max(my_steps, 1);  // a warp without steps still meets the others once a group
  const std::int64_t my_groups = first_group < groups ? (groups - first_group + group_stride - 1) / group_stride : 0;
  constexpr int kItems = 4 * kGroups + 2;
  extern __shared__ __align__(16) unsigned char ring_memory[];
  // This lane's fragments of this warp's ring, [stage][item][lane] in 16-byte units.
  uint4* const ring = reinterpret_cast<uint4*>(ring_memory) + warp * kStages * kItems * 32 + lane;
  __shared__ float by_warp[2][kWarps][kGroups * 4][32];
  const std::uint64_t policy = l2_evict_unchanged();
  const Element* x_row = x + g * p.ldx;  // offsets below count from column 0
  const bool has_token = g < p.M;
  const std::int64_t high_rows = 8 * p.ldw;

  std::int64_t issue_group = 0;  // the issue cursor: the group and the warp's step in it
  int issue_local = 0, issue_stage = 0;
  auto issue = [&]() {
    if (issue_group < my_groups && issue_local < my_steps) {
      const std::int64_t group = first_group + issue_group * group_stride;
      const int rotation = static_cast<int>((static_cast<std::uint64_t>(group) + seed) * 37ull % count);
      const int i = warp + issue_local * kWarps;
      const int step = i + rotation < count ? i + rotation : i + rotation - count;
      uint4* slot = ring + issue_stage * kItems * 32;
#pragma unroll
      for (int c = 0; c < 2; ++c) {
        const std::int64_t offset = step * kStepK + 32 * c + 8 * t;
        const bool in_k = offset < p.K;
#pragma unroll
        for (int r = 0; r < kGroups; ++r) {
          const std::int64_t row = (group * kGroups + r) * kBlockRows + g;
          const Element* low = w + row * p.ldw + offset;
          const bool has_low = in_k && row < p.rows;  // the second block past an odd count
          copy_weight(slot + (4 * r + 2 * c) * 32, has_low ? low : w, has_low, policy);
          const bool high = in_k && row + 8 < p.rows;
          copy_weight(slot + (4 * r + 2 * c + 1) * 32, high ? low + high_rows : w, high, policy);
        }
        const bool token = in_k && has_token;
        copy_x(slot + (4 * kGroups + c) * 32, token ? x_row + offset : x, token);
      }
    }
    asm volatile("cp.async.commit_group;\n" ::: "memory");
    issue_stage = issue_stage + 1 == kStages ? 0 : issue_stage + 1;
    if (++issue_local == per_group) {
      issue_local = 0;
      ++issue_group;
    }
  };
#pragma unroll
  for (int s = 0; s < kStages; ++s) issue();

  float acc[kGroups][4] = {};
  int stage = 0, local = 0;
  for (std::int64_t q = 0; q < my_groups;) {
    asm volatile("cp.async.wait_group %0;\n" ::"n"(kStages - 1) : "memory");
    if (local < my_steps) {
      const uint4* slot = ring + stage * kItems * 32;
#pragma unroll
      for (int c = 0; c < 2; ++c) {
        const uint4 xs = slot[(4 * kGroups + c) * 32];
#pragma unroll
        for (int r = 0; r < kGroups; ++r) {
          const uint4 low = slot[(4 * r + 2 * c) * 32], high = slot[(4 * r + 2 * c + 1) * 32];
          mma_16x8x16<Element>(acc[r], low.x, high.x, low.y, high.y, xs.x, xs.y);
          mma_16x8x16<Element>(acc[r], low.z, high.z, low.w, high.w, xs.z, xs.w);
        }
      }
    }
    issue();  // after the reads of this stage: it refills the same stage
    stage = stage + 1 == kStages ? 0 : stage + 1;
    if (++local < per_group) continue;
    const int buffer = static_cast<int>(q & 1);
#pragma unroll
    for (int r = 0; r < kGroups; ++r) {
#pragma unroll
      for (int i = 0; i < 4; ++i) {
        by_warp[buffer][warp][r * 4 + i][lane] = acc[r][i];
        acc[r][i] = 0.0f;
      }
    }
    __syncthreads();
    if (warp == static_cast<int>(q % kWarps)) {
      const std::int64_t group = first_group + q * group_stride;
#pragma unroll
      for (int r = 0; r < kGroups; ++r) {
        float sum[4];
#pragma unroll
        for (int i = 0; i < 4; ++i) {
          sum[i] = by_warp[buffer][0][r * 4 + i][lane];
#pragma unroll
          for (int v = 1; v < kWarps; ++v) sum[i] += by_warp[buffer][v][r * 4 + i][lane];
        }
        if (group * kGroups + r < (p.rows + kBlockRows - 1) / kBlockRows) {
          Store::template store<Element>(store, sum, group * kGroups + r, g, t, p.M);
        }
      }
    }
    local = 0;
    ++q;
  }
  asm volatile("cp.async.wait_all;\n" ::: "memory");
}

template <class Element, int kWarps, int kGroups, class Store, int kStages>
__global__ void __launch_bounds__(kWarps * 32) stream_kernel(const Mainloop p, const typename Store::Params store,
                                                             std::int64_t groups) {
  stream_groups<Element, kWarps, kGroups, Store, kStages>(p, store, blockIdx.x, gridDim.x, groups);
}

// The persistent kernel of variant v's CTA shape: as many CTAs as fit at once, fewer where that
// evens out the groups each one streams.
template <class Element, Variant v, class Store, int kStages>
cudaError_t launch_stream(const Mainloop& mainloop, const typename Store::Params& store, std::int64_t blocks,
                          int sm_count, cudaStream_t stream) {
  constexpr int kBytes = ring_bytes(warps_of(v), groups_of(v), kStages);
  const auto function = &stream_kernel<Element, warps_of(v), groups_of(v), Store, kStages>;
  static const int resident = [&] {
    int n = 0;
    if (cudaFuncSetAttribute(function, cudaFuncAttributeMaxDynamicSharedMemorySize, kBytes) != cudaSuccess) return 0;
    return cudaOccupancyMaxActiveBlocksPerMultiprocessor(&n, function, warps_of(v) * 32, kBytes) == cudaSuccess ? n
                                                                                                                : 0;
  }();
  if (resident == 0) return cudaErrorInvalidConfiguration;
  const std::int64_t groups = (blocks + groups_of(v) - 1) / groups_of(v);
  const std::int64_t most = static_cast<std::int64_t>(resident) * sm_count;
  const std::int64_t rounds = (groups + most - 1) / most;
  const std::int64_t ctas = (groups + rounds - 1) / rounds;
  cudaLaunchConfig_t config = {};
  config.dynamicSmemBytes = kBytes;
  config.gridDim = dim3(static_cast<unsigned>(ctas));
  config.blockDim = dim3(warps_of(v) * 32);
  config.stream = stream;
  return cudaLaunchKernelEx(&config, function, mainloop, store, groups);
}

}  // namespace epifuse::bench::probes::warp_mma_stream

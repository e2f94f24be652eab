// The permute: keys (expert ids, E for a dropped pair), a stable radix sort over the bits that
// hold 0..E, the offsets by binary search in the sorted keys, then one thread per 16-byte chunk of
// the gathered x. Up to kOneBlockSortPairs pairs (decode and small prefill) one block does the
// keys, the sort (cub's block radix sort) and the offsets in one launch; more pairs take three
// (keys, cub's device radix sort, offsets). The combine: one thread per 8 columns of a token's
// output row.
#include "moe/routing.hpp"

#include <algorithm>
#include <string>

#include <cub/block/block_radix_sort.cuh>
#include <cub/device/device_radix_sort.cuh>
#include <cuda_bf16.h>
#include <cuda_fp16.h>

namespace epifuse::detail {
namespace {

constexpr int kThreads = 256;
constexpr std::int64_t kMaxBlocks = 8192;

int grid_for(std::int64_t work) {
  return static_cast<int>(std::max<std::int64_t>(1, std::min(kMaxBlocks, (work + kThreads - 1) / kThreads)));
}

// Bits that hold every key 0..E.
int key_bits(std::int64_t experts) {
  int bits = 1;
  while ((std::int64_t{1} << bits) <= experts) ++bits;
  return bits;
}

Status launched(const char* what) {
  if (cudaError_t err = cudaGetLastError(); err != cudaSuccess) {
    return Status(StatusCode::kCudaError, std::string("moe_mlp: ") + what + ": " + cudaGetErrorString(err));
  }
  return Status::success();
}

__global__ void make_keys(const std::int32_t* ids, std::int64_t pairs, std::int32_t experts, std::int32_t* keys,
                          std::int32_t* pair_index) {
  for (std::int64_t i = blockIdx.x * static_cast<std::int64_t>(kThreads) + threadIdx.x; i < pairs;
       i += static_cast<std::int64_t>(gridDim.x) * kThreads) {
    const std::int32_t id = ids[i];
    keys[i] = id >= 0 && id < experts ? id : experts;
    pair_index[i] = static_cast<std::int32_t>(i);
  }
}

// offsets[e] = the first sorted key >= e, for e = 0..E; offsets[E] counts the kept pairs.
__global__ void find_offsets(const std::int32_t* sorted_keys, std::int32_t pairs, std::int32_t experts,
                             std::int32_t* offsets, std::int32_t* dropped) {
  for (std::int32_t e = blockIdx.x * kThreads + threadIdx.x; e <= experts; e += gridDim.x * kThreads) {
    std::int32_t lo = 0, hi = pairs;
    while (lo < hi) {
      const std::int32_t mid = lo + (hi - lo) / 2;
      if (sorted_keys[mid] < e) {
        lo = mid + 1;
      } else {
        hi = mid;
      }
    }
    offsets[e] = lo;
    if (e == experts && dropped != nullptr) *dropped = pairs - lo;
  }
}

// One block of kSortThreads threads, kSortItems pairs each, in blocked order (thread t holds pairs
// t·kSortItems ...), so the block sort keeps the pairs' order within an expert. Slots past the
// last pair carry the largest key the sorted bits hold and sort after every pair.
constexpr int kSortThreads = 256, kSortItems = 8;
static_assert(kSortThreads * kSortItems == kOneBlockSortPairs, "one block sorts kOneBlockSortPairs pairs");

__global__ void __launch_bounds__(kSortThreads)
    sort_pairs_in_one_block(const std::int32_t* ids, std::int32_t pairs, std::int32_t experts, int bits,
                            std::int32_t* sorted_keys, std::int32_t* sorted_pairs, std::int32_t* offsets,
                            std::int32_t* dropped) {
  using BlockSort = cub::BlockRadixSort<std::uint32_t, kSortThreads, kSortItems, std::int32_t>;
  __shared__ union {
    typename BlockSort::TempStorage sort;
    std::uint32_t keys[kOneBlockSortPairs];
  } shared;
  const std::uint32_t padding = (std::uint32_t{1} << bits) - 1;
  std::uint32_t keys[kSortItems];
  std::int32_t pair_index[kSortItems];
#pragma unroll
  for (int i = 0; i < kSortItems; ++i) {
    const std::int32_t p = static_cast<std::int32_t>(threadIdx.x) * kSortItems + i;
    const std::int32_t id = p < pairs ? ids[p] : experts;
    keys[i] = p < pairs ? static_cast<std::uint32_t>(id >= 0 && id < experts ? id : experts) : padding;
    pair_index[i] = p;
  }
  BlockSort(shared.sort).Sort(keys, pair_index, 0, bits);
  __syncthreads();  // the sort's storage becomes the sorted keys
#pragma unroll
  for (int i = 0; i < kSortItems; ++i) {
    const std::int32_t rank = static_cast<std::int32_t>(threadIdx.x) * kSortItems + i;
    shared.keys[rank] = keys[i];
    if (rank < pairs) {
      sorted_keys[rank] = static_cast<std::int32_t>(keys[i]);
      sorted_pairs[rank] = pair_index[i];
    }
  }
  __syncthreads();
  for (std::int32_t e = threadIdx.x; e <= experts; e += kSortThreads) {
    std::int32_t lo = 0, hi = pairs;
    while (lo < hi) {
      const std::int32_t mid = lo + (hi - lo) / 2;
      if (shared.keys[mid] < static_cast<std::uint32_t>(e)) {
        lo = mid + 1;
      } else {
        hi = mid;
      }
    }
    offsets[e] = lo;
    if (e == experts && dropped != nullptr) *dropped = pairs - lo;
  }
}

__global__ void gather_rows(const uint4* x, std::int64_t ldx_chunks, const std::int32_t* sorted_keys,
                            const std::int32_t* sorted_pairs, std::int64_t pairs, std::int32_t topk,
                            std::int32_t experts, std::int64_t row_chunks, uint4* x_sorted, std::int32_t* rows) {
  const std::int64_t total = pairs * row_chunks;
  for (std::int64_t i = blockIdx.x * static_cast<std::int64_t>(kThreads) + threadIdx.x; i < total;
       i += static_cast<std::int64_t>(gridDim.x) * kThreads) {
    const std::int64_t row = i / row_chunks, chunk = i % row_chunks;
    const std::int32_t pair = sorted_pairs[row];
    const bool kept = sorted_keys[row] < experts;
    if (chunk == 0) rows[pair] = kept ? static_cast<std::int32_t>(row) : -1;
    if (kept) x_sorted[row * row_chunks + chunk] = x[(pair / topk) * ldx_chunks + chunk];
  }
}

struct Eight {
  float v[8] = {};
};

__device__ __forceinline__ void accumulate(Eight& acc, const uint4& raw, float w, __nv_bfloat16) {
  const auto* h = reinterpret_cast<const __nv_bfloat162*>(&raw);
#pragma unroll
  for (int i = 0; i < 4; ++i) {
    const float2 f = __bfloat1622float2(h[i]);
    acc.v[2 * i] += w * f.x;
    acc.v[2 * i + 1] += w * f.y;
  }
}
__device__ __forceinline__ void accumulate(Eight& acc, const uint4& raw, float w, __half) {
  const auto* h = reinterpret_cast<const __half2*>(&raw);
#pragma unroll
  for (int i = 0; i < 4; ++i) {
    const float2 f = __half22float2(h[i]);
    acc.v[2 * i] += w * f.x;
    acc.v[2 * i + 1] += w * f.y;
  }
}
__device__ __forceinline__ uint4 round8(const Eight& acc, __nv_bfloat16) {
  uint4 out;
  auto* h = reinterpret_cast<__nv_bfloat162*>(&out);
#pragma unroll
  for (int i = 0; i < 4; ++i) h[i] = __floats2bfloat162_rn(acc.v[2 * i], acc.v[2 * i + 1]);
  return out;
}
__device__ __forceinline__ uint4 round8(const Eight& acc, __half) {
  uint4 out;
  auto* h = reinterpret_cast<__half2*>(&out);
#pragma unroll
  for (int i = 0; i < 4; ++i) h[i] = __floats2half2_rn(acc.v[2 * i], acc.v[2 * i + 1]);
  return out;
}

template <class Element>
__global__ void combine_rows(const uint4* expert_out, std::int64_t row_chunks, const std::int32_t* rows,
                             const float* weights, std::int64_t tokens, std::int32_t topk, const uint4* add,
                             std::int64_t ld_add_chunks, uint4* y, std::int64_t ldy_chunks) {
  const std::int64_t total = tokens * row_chunks;
  for (std::int64_t i = blockIdx.x * static_cast<std::int64_t>(kThreads) + threadIdx.x; i < total;
       i += static_cast<std::int64_t>(gridDim.x) * kThreads) {
    const std::int64_t t = i / row_chunks, chunk = i % row_chunks;
    Eight acc;
    if (add != nullptr) accumulate(acc, add[t * ld_add_chunks + chunk], 1.0f, Element{});
    for (std::int32_t j = 0; j < topk; ++j) {
      const std::int32_t row = rows[t * topk + j];
      if (row >= 0) accumulate(acc, expert_out[row * row_chunks + chunk], weights[t * topk + j], Element{});
    }
    y[t * ldy_chunks + chunk] = round8(acc, Element{});
  }
}

}  // namespace

bool sorts_in_one_block(std::int64_t pairs, std::int64_t experts) {
  return pairs <= kOneBlockSortPairs && experts <= kOneBlockSortMaxExperts;
}

Status moe_sort_temp_bytes(std::int64_t pairs, std::int64_t experts, std::size_t* bytes) {
  *bytes = 0;
  if (sorts_in_one_block(pairs, experts)) return Status::success();
  const cudaError_t err = cub::DeviceRadixSort::SortPairs(
      nullptr, *bytes, static_cast<const std::int32_t*>(nullptr), static_cast<std::int32_t*>(nullptr),
      static_cast<const std::int32_t*>(nullptr), static_cast<std::int32_t*>(nullptr), static_cast<int>(pairs), 0,
      key_bits(experts));
  if (err != cudaSuccess) {
    return Status(StatusCode::kCudaError, std::string("moe_mlp: sizing the sort: ") + cudaGetErrorString(err));
  }
  return Status::success();
}

Status moe_permute(const MoeRouting& r, const std::int32_t* topk_ids, std::int64_t tokens, std::int64_t topk,
                   std::int64_t experts, const void* x, std::int64_t ldx, std::int64_t K, DType dtype, void* x_sorted,
                   std::int32_t* dropped, cudaStream_t stream) {
  const std::int64_t pairs = tokens * topk;
  const auto e = static_cast<std::int32_t>(experts);
  if (sorts_in_one_block(pairs, experts)) {
    sort_pairs_in_one_block<<<1, kSortThreads, 0, stream>>>(topk_ids, static_cast<std::int32_t>(pairs), e,
                                                            key_bits(experts), r.sorted_keys, r.sorted_pairs,
                                                            r.offsets, dropped);
    if (Status s = launched("sorting the pairs"); !s.ok()) return s;
  } else {
    make_keys<<<grid_for(pairs), kThreads, 0, stream>>>(topk_ids, pairs, e, r.keys, r.pairs);
    if (Status s = launched("making the sort keys"); !s.ok()) return s;
    std::size_t temp_bytes = r.sort_temp_bytes;
    if (cudaError_t err = cub::DeviceRadixSort::SortPairs(r.sort_temp, temp_bytes, r.keys, r.sorted_keys, r.pairs,
                                                          r.sorted_pairs, static_cast<int>(pairs), 0,
                                                          key_bits(experts), stream);
        err != cudaSuccess) {
      return Status(StatusCode::kCudaError, std::string("moe_mlp: sorting the pairs: ") + cudaGetErrorString(err));
    }
    find_offsets<<<grid_for(experts + 1), kThreads, 0, stream>>>(r.sorted_keys, static_cast<std::int32_t>(pairs), e,
                                                                  r.offsets, dropped);
    if (Status s = launched("finding the expert offsets"); !s.ok()) return s;
  }
  const std::int64_t element = static_cast<std::int64_t>(dtype_bytes(dtype));
  const std::int64_t row_chunks = K * element / 16;
  gather_rows<<<grid_for(pairs * row_chunks), kThreads, 0, stream>>>(
      static_cast<const uint4*>(x), ldx * element / 16, r.sorted_keys, r.sorted_pairs, pairs,
      static_cast<std::int32_t>(topk), e, row_chunks, static_cast<uint4*>(x_sorted), r.rows);
  return launched("gathering x");
}

Status moe_combine(const void* expert_out, std::int64_t K, const std::int32_t* rows, const float* topk_weights,
                   std::int64_t tokens, std::int64_t topk, const void* add, std::int64_t ld_add, void* y,
                   std::int64_t ldy, DType dtype, cudaStream_t stream) {
  const std::int64_t row_chunks = K / 8;
  auto run = [&](auto element) {
    combine_rows<decltype(element)><<<grid_for(tokens * row_chunks), kThreads, 0, stream>>>(
        static_cast<const uint4*>(expert_out), row_chunks, rows, topk_weights, tokens, static_cast<std::int32_t>(topk),
        static_cast<const uint4*>(add), ld_add / 8, static_cast<uint4*>(y), ldy / 8);
  };
  if (dtype == DType::kBF16) {
    run(__nv_bfloat16{});
  } else {
    run(__half{});
  }
  return launched("combining the experts' rows");
}

}  // namespace epifuse::detail

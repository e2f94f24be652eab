// The two ends of a MoE layer around its grouped GEMMs (moe_mlp.hpp): the permute, which sorts
// the (token, choice) pairs by expert and gathers x's rows in that order, and the combine, which
// sums each token's k expert rows with its routing weights.
#pragma once

#include <cstddef>
#include <cstdint>

#include <cuda_runtime_api.h>

#include "epifuse/status.hpp"
#include "epifuse/types.hpp"

namespace epifuse::detail {

// Device arrays of the permute, in the caller's workspace. P = T·k pairs.
struct MoeRouting {
  std::int32_t* keys = nullptr;         // [P] expert id of each pair, E for an id outside [0, E)
  std::int32_t* sorted_keys = nullptr;  // [P]
  std::int32_t* pairs = nullptr;        // [P] 0, 1, ..., P-1
  std::int32_t* sorted_pairs = nullptr;  // [P] the pairs in expert order (stable)
  void* sort_temp = nullptr;
  std::size_t sort_temp_bytes = 0;
  std::int32_t* offsets = nullptr;  // [E + 1] expert e's rows: [offsets[e], offsets[e+1])
  std::int32_t* rows = nullptr;     // [P] pair -> its row of the gathered x, -1 when dropped
};

// Up to this many pairs, over at most kOneBlockSortMaxExperts experts, one block sorts them and
// finds the offsets in one launch (keys, pairs and the sort's scratch unused); more take three.
constexpr std::int64_t kOneBlockSortPairs = 2048;
constexpr std::int64_t kOneBlockSortMaxExperts = 4096;
bool sorts_in_one_block(std::int64_t pairs, std::int64_t experts);

// cub's scratch bytes for sorting P pairs by expert (0 where one block sorts them).
Status moe_sort_temp_bytes(std::int64_t pairs, std::int64_t experts, std::size_t* bytes);

// Sorts the pairs of topk_ids [T, k] by expert, writes the offsets and rows of `routing`, the
// count of dropped pairs to *dropped (when non-null) and x's rows, gathered, to x_sorted [P, K]
// (row stride K). K·element size a multiple of 16 bytes.
Status moe_permute(const MoeRouting& routing, const std::int32_t* topk_ids, std::int64_t tokens, std::int64_t topk,
                   std::int64_t experts, const void* x, std::int64_t ldx, std::int64_t K, DType dtype, void* x_sorted,
                   std::int32_t* dropped, cudaStream_t stream);

// y[t,:] = Σ_j w[t,j]·expert_out[rows[t·k+j],:] (+ add[t,:]) in fp32, j in order, rounded once.
// expert_out [P, K] row stride K.
Status moe_combine(const void* expert_out, std::int64_t K, const std::int32_t* rows, const float* topk_weights,
                   std::int64_t tokens, std::int64_t topk, const void* add, std::int64_t ld_add, void* y,
                   std::int64_t ldy, DType dtype, cudaStream_t stream);

}  // namespace epifuse::detail

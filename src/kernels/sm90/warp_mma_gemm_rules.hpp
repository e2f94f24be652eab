// Which CTAs the 16-token warp-mma GEMM kernel runs at up to 16 tokens. Shared by its launcher
// (warp_mma_mainloop.cuh: launch_chosen, which has the measurements) and dispatch
// (gemm_heuristics.cpp, whose K-loop shares count these CTAs).
#pragma once

#include <cstdint>

namespace epifuse::kernels::sm90::warp_mma {

constexpr std::int64_t kBlockPairsMinWeight = std::int64_t{3} << 22;  // elements: 24 MiB in 16 bits
constexpr std::int64_t kBlockPairsMinBlocks = 64;

// Whether a weight of `rows` x K runs in CTAs of two blocks of 16 rows (else one block each).
constexpr bool runs_block_pairs(std::int64_t rows, std::int64_t K) {
  return (rows + 15) / 16 >= kBlockPairsMinBlocks && rows * K >= kBlockPairsMinWeight;
}

// Whether CTAs of two blocks in `splits` K-loop shares run 8 warps each (two per SM), else 4 (five).
constexpr bool block_pairs_are_wide(std::int64_t blocks, int splits, int sm_count) {
  return (blocks + 1) / 2 * splits <= 2 * static_cast<std::int64_t>(sm_count);
}

}  // namespace epifuse::kernels::sm90::warp_mma

// Which CTAs the grouped warp-mma kernel runs, by the length of its rows (K), shared by the
// kernel's launcher (warp_mma_grouped_kernel.cuh) and dispatch (grouped_heuristics.cpp): the pairs
// (4 warps over two blocks of 16 rows), the singles (4 warps, one block) or the wide (8 warps, one
// block). Pairs fall back to singles where an expert's blocks are odd.
//
// H200, each variant launched directly over the same experts, calls queued back to back
// (bench/results/moe/decode-warp-mma/queued/):
// - gate/up, seven models at 1-8 tokens: the pairs were the fastest at 23 of 28 points and within
//   3.4 % of it at 4 more; at one token on rows of 6144-7168 (DeepSeek-V3, Mixtral-8x22B) the
//   singles took 0.90x and 0.97x the pairs' time, and 1.00-1.04x at 2-8 tokens. The wide CTAs,
//   which the dense kernels' choose_variant picks for this many blocks, took 0.97-1.26x the pairs'.
// - down projections (the grouped GEMM), nine models at 1-4 tokens: on rows of 768-2880 (15 points)
//   the wide CTAs took 1.00-1.43x the fastest variant's time and the pairs 1.00-1.24x (0.71-1.08x
//   the time of the variant choose_variant picked); on rows of 8192-16384 (12 points) the wide
//   took 1.00-1.07x the fastest, the pairs up to 2.35x.
#pragma once

#include <cstdint>

namespace epifuse::kernels::sm90::warp_mma {

constexpr std::int64_t kGatedSinglesMinK = 6144;  // gate/up: the singles from here, the pairs below
constexpr std::int64_t kWideRowsMinK = 8192;      // down: the wide from here, the pairs below

// Whether rows of K elements run on the pairs (`gated`: the gated MLP's gate/up rows; else the
// grouped GEMM's).
constexpr bool grouped_runs_pairs(bool gated, std::int64_t K) {
  return K < (gated ? kGatedSinglesMinK : kWideRowsMinK);
}

// Whether rows of K elements run on the wide CTAs.
constexpr bool grouped_runs_wide(bool gated, std::int64_t K) { return !gated && K >= kWideRowsMinK; }

}  // namespace epifuse::kernels::sm90::warp_mma

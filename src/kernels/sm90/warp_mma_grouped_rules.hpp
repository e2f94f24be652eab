// Which CTAs the grouped warp-mma kernel runs, by the length of its rows (K). Shared by its launcher
// (warp_mma_grouped_kernel.cuh, which has the measurements) and dispatch (grouped_heuristics.cpp).
#pragma once

#include <cstdint>

namespace epifuse::kernels::sm90::warp_mma {

constexpr std::int64_t kGatedSinglesMinK = 6144;  // gate/up: the pairs below, the singles from here
constexpr std::int64_t kWideRowsMinK = 8192;      // grouped GEMM: the singles below, the wide from here

// Whether gate/up rows of K elements run on the pairs CTAs (4 warps over two blocks of 16 rows).
constexpr bool gated_runs_pairs(std::int64_t K) { return K < kGatedSinglesMinK; }

}  // namespace epifuse::kernels::sm90::warp_mma

// Where the grouped warp-mma kernel's CTA shapes change with the row length, shared by the kernel's
// launcher (warp_mma_grouped_kernel.cuh) and dispatch (grouped_heuristics.cpp).
#pragma once

#include <cstdint>

namespace epifuse::kernels::sm90::warp_mma {

// Gate/up rows of at least this many elements run on the singles CTAs, shorter ones on the pairs
// (where each expert's blocks pair up). H200, each variant launched directly over the same experts,
// calls queued back to back (bench/results/moe/decode-warp-mma/queued/), seven models at 1-8 tokens:
// the pairs were the fastest at 23 of 28 points and within 3.4 % of it at 4 more; at DeepSeek-V3's
// one token (rows of 7168) the singles took 0.90x the pairs' time, on Mixtral-8x22B's (6144) 0.97x,
// and 1.00-1.04x on both at 2-8 tokens. The wide CTAs, which choose_variant picks for this many
// blocks, took 0.97-1.26x the pairs' time.
constexpr std::int64_t kGatedSinglesMinK = 6144;

// Grouped GEMM rows (the MoE down projection) of at least this many elements run on the wide
// CTAs (8 warps share each block's K loop). H200, each variant forced on MoE down projections at
// 1-2 tokens (bench/results/moe/decode-warp-mma/variants/): with K 8192-16384 (Llama-4 Scout,
// Mixtral-8x7B and 8x22B, DBRX) the wide CTAs took 0.47-0.97x the 128x32 CUTLASS kernel's time
// where choose_variant's pairs took 1.05-1.20x. With K 768-7168 they were mixed: Qwen2-57B-A14B's
// down (K 2560) 0.89-0.93x against 0.97-1.05x, Qwen3-30B-A3B's (K 768) 0.81-0.84x against 0.67-0.72x.
constexpr std::int64_t kWideRowsMinK = 8192;

}  // namespace epifuse::kernels::sm90::warp_mma

// The warp-mma kernels' shared part, for a few tokens (decode), where the run time is the weight
// read: warps stream weight rows from global memory straight into mma.sync A fragments (no TMA,
// no shared memory staging, no wgmma tile of 64 rows to fill), the tokens on the 8-wide N side.
// The ops differ in what a block of 16 weight rows is and how its sums are stored (a Store):
// the gated MLP's 8 gate rows and their 8 up rows (warp_mma_gated_kernel.cuh), the GEMM's 16
// output columns (warp_mma_gemm_kernel.cuh).
//
// Work: a CTA owns kGroups blocks of 16 rows, its warps share the K loop in 64-element steps, and
// `splits` CTAs of a cluster share it further (narrow weights). Partial sums meet in the first
// CTA's shared memory (distributed shared memory), summed in a fixed order: results do not depend
// on timing.
//
// Fragments: mma.m16n8k16 gives lane (g, t) = (lane / 4, lane % 4) A elements of rows g and g + 8
// at k slots {2t, 2t+1, 2t+8, 2t+9} and B elements of column g at the same slots. Any one-to-one
// map of k to slots, used alike for A and B, leaves the sum unchanged; so each lane loads 16
// contiguous bytes per row and chunk (elements e0..e7 at k = 64·step + 32c + 8t + e: one load
// instruction covers 64 contiguous bytes of each of 8 rows) and feeds e0-e3 to one mma and e4-e7
// to the next, and loads x the same way. The accumulator gives lane (g, t) the sums of rows g and
// g + 8 of its block for tokens 2t and 2t + 1. A kernel of two token tiles (up to 16 tokens) runs
// a second mma on the same weight fragments for tokens 8-15: the weight is still read once.
#pragma once

#include <cooperative_groups.h>
#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include <cstdint>
#include <type_traits>

#include "epifuse/detail/kernel_launch.hpp"
#include "kernels/sm90/warp_mma_gemm_rules.hpp"

namespace epifuse::kernels::sm90::warp_mma {

constexpr int kStepK = 64;       // k per warp step: 4 lanes x 16 elements
constexpr int kMaxSplits = 8;    // CTAs per cluster: the portable maximum
constexpr int kTokens = 8;       // the mma's N: the tokens of one token tile
constexpr int kBlockRows = 16;   // the mma's M

// What the K loop reads. A block's rows g + 8 at or past `rows` read as zero (a GEMM whose N is
// 8 more than a multiple of 16).
struct Mainloop {
  const void* x;  // [M, ldx]
  std::int64_t ldx;
  int M;
  const void* w;  // [rows, ldw]
  std::int64_t ldw;
  std::int64_t K;
  std::int64_t rows;
  std::int64_t steps_per_split;
};

template <class Element>
__device__ __forceinline__ void mma_16x8x16(float (&c)[4], std::uint32_t a0, std::uint32_t a1, std::uint32_t a2,
                                            std::uint32_t a3, std::uint32_t b0, std::uint32_t b1) {
  if constexpr (std::is_same_v<Element, __nv_bfloat16>) {
    asm volatile(
        "mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, {%0,%1,%2,%3};\n"
        : "+f"(c[0]), "+f"(c[1]), "+f"(c[2]), "+f"(c[3])
        : "r"(a0), "r"(a1), "r"(a2), "r"(a3), "r"(b0), "r"(b1));
  } else {
    asm volatile(
        "mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, {%0,%1,%2,%3};\n"
        : "+f"(c[0]), "+f"(c[1]), "+f"(c[2]), "+f"(c[3])
        : "r"(a0), "r"(a1), "r"(a2), "r"(a3), "r"(b0), "r"(b1));
  }
}

// A weight load that skips L1 (each byte is read once) and has L2 fetch the 256-byte span around
// it: 0.2-3 % faster than __ldcs on an H100 (bench/results/tuning/issue9/decode-gemm/). Its L2
// policy leaves line priorities unchanged: with the default one, lines that an earlier kernel
// left at evict_last (cuBLASLt's GEMMs do) slowed this kernel by 1.07-1.33x for as long as they
// stayed, over many calls; with evict_unchanged it runs at its own speed after them (H200,
// bench/results/moe/decode-warp-mma/l2-policy/).
__device__ __forceinline__ std::uint64_t l2_evict_unchanged() {
  std::uint64_t policy;
  asm("createpolicy.fractional.L2::evict_unchanged.b64 %0, 1.0;\n" : "=l"(policy));
  return policy;
}

__device__ __forceinline__ uint4 load_weight(const void* p, std::uint64_t policy) {
  uint4 v;
  asm volatile("ld.global.nc.L1::no_allocate.L2::cache_hint.L2::256B.v4.u32 {%0,%1,%2,%3}, [%4], %5;\n"
               : "=r"(v.x), "=r"(v.y), "=r"(v.z), "=r"(v.w)
               : "l"(p), "l"(policy));
  return v;
}

template <class Element>
__device__ __forceinline__ Element round_to(float v) {
  if constexpr (std::is_same_v<Element, __nv_bfloat16>) {
    return __float2bfloat16_rn(v);
  } else {
    return __float2half_rn(v);
  }
}

// One pass of a CTA over its kGroups blocks from `first_block` for the (at most 8·kTokenTiles)
// tokens of p from `first_token` on: its share of the K loop, the sums met in the cluster's first
// CTA, and that CTA's Store::store(params, sums, block, g, t, M), which gets lane (g, t)'s four
// sums of `block` (rows g, g + 8; tokens 2t, 2t + 1) of one token tile; tile j's params are
// Store::at_rows(params, 0, first_token + 8j) and its M is p.M - first_token - 8j. `seed`
// scatters the CTAs' K-loop starts. A CTA that makes another pass must have made its earlier ones
// (`again`): the cluster's barriers pair up pass by pass.
template <class Element, int kWarps, int kUnroll, int kGroups, int kTokenTiles, class Store>
__device__ __forceinline__ void pass(const Mainloop& p, const typename Store::Params& store, std::int64_t first_block,
                                     std::uint64_t seed, bool again, int first_token = 0) {
  namespace cg = cooperative_groups;
  const int lane = threadIdx.x % 32, warp = threadIdx.x / 32;
  const int g = lane / 4, t = lane % 4;
  const cg::cluster_group cluster = cg::this_cluster();
  const int splits = static_cast<int>(cluster.num_blocks());
  const int split = static_cast<int>(cluster.block_rank());
  const Element* w = static_cast<const Element*>(p.w);
  const Element* x = static_cast<const Element*>(p.x);
  const std::int64_t steps = (p.K + kStepK - 1) / kStepK;
  const std::int64_t begin = split * p.steps_per_split;
  const std::int64_t end = min(begin + p.steps_per_split, steps);
  // A CTA may write into the first CTA's shared memory only once that CTA runs (and, on a later
  // pass, has read the sums of the one before): arrive now, wait before the write, so the main
  // loop hides the wait.
  if (again) {
    __syncthreads();  // the CTA's sums of the pass before are read (by_warp, by_split) before it rewrites them
    asm volatile("barrier.cluster.arrive.aligned;\n" ::: "memory");
  } else {
    asm volatile("barrier.cluster.arrive.relaxed.aligned;\n" ::: "memory");
  }

  float acc[kGroups][kTokenTiles][4] = {};
  const uint4 zero = make_uint4(0, 0, 0, 0);
  // Each CTA starts its K loop at its own step and wraps around, so that the CTAs running at once
  // read at scattered offsets of their rows rather than all at the same one (rows lie a power of
  // two of bytes apart in most models). Offsets count elements from this lane's first column of
  // the split (32-bit: K < 2^31).
  const int count = static_cast<int>(max(end - begin, std::int64_t{0}));
  const int rotation = count > 0 ? static_cast<int>(seed * 37ull % count) : 0;
  const std::int64_t first_column = begin * kStepK + 8 * t;
  const int columns_left = static_cast<int>(p.K - first_column);
  const Element* low_rows[kGroups];
  bool has_high[kGroups];
#pragma unroll
  for (int r = 0; r < kGroups; ++r) {
    // The 16-token kernel's CTAs of two blocks past an odd count read the last row again for
    // their second block (no branch in the loop); its sums are never stored. (The grouped kernels
    // run two blocks per CTA only on even counts, and the clamp spilled in their gate/up pairs.)
    const std::int64_t row = (first_block + r) * kBlockRows + g;
    const std::int64_t read_row = kGroups > 1 && kTokenTiles > 1 ? min(row, p.rows - 1) : row;
    low_rows[r] = w + read_row * p.ldw + first_column;
    has_high[r] = row + 8 < p.rows;
  }
  const std::int64_t high_rows = 8 * p.ldw;
  const std::uint64_t policy = l2_evict_unchanged();
  const Element* x_row = x + (first_token + g) * p.ldx + first_column;
  for (int first = warp; first < count; first += kWarps * kUnroll) {
    // All loads of kUnroll steps first, then their mmas: bytes in flight hide the memory latency.
    uint4 low[kUnroll][kGroups][2], high[kUnroll][kGroups][2], xs[kUnroll][kTokenTiles][2];
#pragma unroll
    for (int u = 0; u < kUnroll; ++u) {
      const int i = first + u * kWarps;
      const int step = i + rotation < count ? i + rotation : i + rotation - count;
#pragma unroll
      for (int c = 0; c < 2; ++c) {
        const int offset = step * kStepK + 32 * c;
        const bool in_k = i < count && offset < columns_left;  // K is a multiple of 8: chunks are whole or absent
#pragma unroll
        for (int r = 0; r < kGroups; ++r) {
          low[u][r][c] = in_k ? load_weight(low_rows[r] + offset, policy) : zero;
          high[u][r][c] = in_k && has_high[r] ? load_weight(low_rows[r] + high_rows + offset, policy) : zero;
        }
#pragma unroll
        for (int j = 0; j < kTokenTiles; ++j) {
          xs[u][j][c] = in_k && first_token + kTokens * j + g < p.M
                            ? __ldg(reinterpret_cast<const uint4*>(x_row + kTokens * j * p.ldx + offset))
                            : zero;
        }
      }
    }
#pragma unroll
    for (int u = 0; u < kUnroll; ++u) {
#pragma unroll
      for (int c = 0; c < 2; ++c) {
#pragma unroll
        for (int r = 0; r < kGroups; ++r) {
#pragma unroll
          for (int j = 0; j < kTokenTiles; ++j) {
            mma_16x8x16<Element>(acc[r][j], low[u][r][c].x, high[u][r][c].x, low[u][r][c].y, high[u][r][c].y,
                                 xs[u][j][c].x, xs[u][j][c].y);
            mma_16x8x16<Element>(acc[r][j], low[u][r][c].z, high[u][r][c].z, low[u][r][c].w, high[u][r][c].w,
                                 xs[u][j][c].z, xs[u][j][c].w);
          }
        }
      }
    }
  }

  constexpr int kValues = kGroups * kTokenTiles * 4;
  __shared__ float by_warp[kWarps][kValues][32];
  __shared__ float by_split[kMaxSplits][kValues][32];  // used in the cluster's first CTA
#pragma unroll
  for (int r = 0; r < kGroups; ++r) {
#pragma unroll
    for (int j = 0; j < kTokenTiles; ++j) {
#pragma unroll
      for (int i = 0; i < 4; ++i) by_warp[warp][(r * kTokenTiles + j) * 4 + i][lane] = acc[r][j][i];
    }
  }
  __syncthreads();
  asm volatile("barrier.cluster.wait.aligned;\n" ::: "memory");
  if (warp == 0) {
    float* into = cluster.map_shared_rank(&by_split[split][0][0], 0);
#pragma unroll
    for (int j = 0; j < kValues; ++j) {
      float sum = by_warp[0][j][lane];
#pragma unroll
      for (int v = 1; v < kWarps; ++v) sum += by_warp[v][j][lane];
      into[j * 32 + lane] = sum;
    }
  }
  cluster.sync();
  if (split != 0 || warp != 0) return;

#pragma unroll
  for (int j = 0; j < kTokenTiles; ++j) {
    const int tile_token = first_token + kTokens * j;
    const typename Store::Params tile_store =
        tile_token == 0 ? store : Store::template at_rows<Element>(store, 0, tile_token);
#pragma unroll
    for (int r = 0; r < kGroups; ++r) {
      const int value = (r * kTokenTiles + j) * 4;
      float sum[4];
#pragma unroll
      for (int i = 0; i < 4; ++i) {
        sum[i] = by_split[0][value + i][lane];
        for (int q = 1; q < splits; ++q) sum[i] += by_split[q][value + i][lane];
      }
      Store::template store<Element>(tile_store, sum, first_block + r, g, t, p.M - tile_token);
    }
  }
}

// Grid: splits x (blocks / kGroups) CTAs in clusters of `splits` along x; with kTokenRows, along
// y one row of them per 8·kTokenTiles tokens (a GEMM of more tokens than one pass holds: each row
// reads the weight again, the rows after the first mostly from L2). A separate instantiation: the
// row's token offset took the two-token-tile kernel from 80 registers to 98 (two CTAs per SM
// instead of three).
template <class Element, int kWarps, int kUnroll, int kGroups, int kTokenTiles, class Store, bool kTokenRows>
__global__ void __launch_bounds__(kWarps * 32) kernel(const Mainloop p, const typename Store::Params store) {
  const unsigned splits = cooperative_groups::this_cluster().num_blocks();
  const std::uint64_t cta_blocks = blockIdx.x / splits;
  const int first_token = kTokenRows ? static_cast<int>(blockIdx.y) * kTokens * kTokenTiles : 0;
  pass<Element, kWarps, kUnroll, kGroups, kTokenTiles, Store>(p, store, cta_blocks * kGroups,
                                                              cta_blocks + 13ull * first_token, false, first_token);
}

// The compiled variants: CTAs of 16 or 32 rows, 4 or 8 warps.
enum class Variant { kWide, kWidePairs, kPairs, kSingles };

constexpr int warps_of(Variant v) { return v == Variant::kWide || v == Variant::kWidePairs ? 8 : 4; }
constexpr int groups_of(Variant v) { return v == Variant::kPairs || v == Variant::kWidePairs ? 2 : 1; }
constexpr int kUnrollSteps = 4;  // one token tile's: k steps whose loads are in flight at once

// Two token tiles hold twice the x fragments. CTAs of one block keep 2 steps in flight: 80
// registers, three wide CTAs per SM (with 4 steps, 142: one). CTAs of two blocks keep one: each
// lane's x fragments then serve 32 weight rows, which halves the x bytes a CTA reads from L2 for
// the same weight bytes (with one block they equal them), at 96-98 registers (two CTAs of 8 warps
// per SM, five of 4). See launch_chosen for where each runs.
constexpr int unroll_steps(int groups, int token_tiles) { return token_tiles == 1 ? kUnrollSteps : groups == 1 ? 2 : 1; }

template <class Element, Variant v, class Store, int kTokenTiles = 1, bool kTokenRows = false>
constexpr auto kernel_of() {
  return &kernel<Element, warps_of(v), unroll_steps(groups_of(v), kTokenTiles), groups_of(v), kTokenTiles, Store,
                 kTokenRows>;
}

template <class Element, Variant v, class Store>
int resident_ctas_per_sm() {
  static const int ctas = [] {
    int n = 0;
    return cudaOccupancyMaxActiveBlocksPerMultiprocessor(&n, kernel_of<Element, v, Store>(), warps_of(v) * 32, 0) ==
                   cudaSuccess
               ? n
               : 1;
  }();
  return ctas;
}

// The dense kernels' CTAs at one token tile: the wide where a cluster shares the K loop (splits >
// 1: narrow weights) or where all blocks fit in one wave of them; otherwise the singles. ptxas
// gives both 124-126 registers (load_weight's hinted loads keep a warp's four steps in flight):
// two wide or four singles per SM. H200, the GEMM kernel at 8 tokens, weights rotated past L2
// (bench/results/tuning/issue9/decode-gemm/two-token-tiles/), one K-loop share: on 64-256
// blocks (1024x4096 to 4096x16384) the wide took 0.79-0.98x the singles' time; on 288-384 blocks
// (4608x3584, 5120x3072, 6144x4096) 1.17-1.33x, a second wave; on 512-1024 blocks 1.00-1.13x,
// but 0.96-0.97x on 10240x8192. At two token tiles (up to 16 tokens): launch_chosen.
inline Variant choose_variant(std::int64_t blocks, int splits, int sm_count) {
  if (splits > 1 || blocks <= 2 * static_cast<std::int64_t>(sm_count)) return Variant::kWide;
  return Variant::kSingles;
}

// Launches `function`, a kernel of variant v, over `blocks` blocks of weight rows (times `rows_y`
// along y) in clusters of `splits` CTAs along x.
template <Variant v, class Function, class... Args>
cudaError_t launch_ctas(Function function, std::int64_t blocks, int splits, unsigned rows_y, cudaStream_t stream,
                        const Args&... args) {
  cudaLaunchConfig_t config = {};
  config.gridDim = dim3(static_cast<unsigned>((blocks + groups_of(v) - 1) / groups_of(v) * splits), rows_y);
  config.blockDim = dim3(warps_of(v) * 32);
  config.stream = stream;
  cudaLaunchAttribute cluster[1];
  cluster[0].id = cudaLaunchAttributeClusterDimension;
  cluster[0].val.clusterDim.x = static_cast<unsigned>(splits);
  cluster[0].val.clusterDim.y = 1;
  cluster[0].val.clusterDim.z = 1;
  config.attrs = cluster;
  config.numAttrs = 1;
  return epifuse::detail::launch_kernel(config, function, args...);
}

// Up to 8·kTokenTiles tokens.
template <class Element, Variant v, class Store, int kTokenTiles = 1>
cudaError_t launch(const Mainloop& mainloop, const typename Store::Params& store, std::int64_t blocks, int splits,
                   cudaStream_t stream) {
  return launch_ctas<v>(kernel_of<Element, v, Store, kTokenTiles>(), blocks, splits, 1, stream, mainloop, store);
}

// Launches the variant choose_variant picks at one token tile. At two, up to 16 tokens: CTAs of
// two blocks on weights of at least 24 MiB and 64 blocks (runs_block_pairs), 8 warps where they
// fit in one wave of two per SM, else 4; otherwise the wide CTAs of one block. H100, 9-16 tokens
// on 35 weights of 8-235 MB (N 1024-8192, K 2048-57344) rotated past L2, each CTA shape at 1-8
// shares, every launch a CUDA graph timed alone (epifuse-warp-mma-tiles-probe, bench/results/
// tuning/issue9/decode-gemm/block-pairs/, tools/warp_mma_tiles_rule.py), the best shares of each:
// - two blocks took 0.82-0.91x one block's time on the weights of 67 MB or more with N >= 3584
//   (8192 x 8192: 0.82x), 0.91-1.01x on those of 25-52 MB, 0.92-1.04x on N 1024-3072 from 25 MB,
//   and 1.03-1.16x on the 8-19 MB ones;
// - 8 warps took 0.92-1.04x the time of 4, and 1.05-1.09x on 2048 x 14336 and 2048 x 28672,
//   where 4 warps run 8 shares (dispatch gives them those there: gemm_heuristics.cpp).
// This rule with dispatch's shares took 1.006x the time of each point's best CTA shape and share
// count (geometric mean over 86 points, worst 1.043x); one block for every call, 1.039x (1.218x).
// Past 16 tokens the wide CTAs of one block run in rows of 16 tokens.
template <class Element, class Store, int kTokenTiles = 1>
cudaError_t launch_chosen(const Mainloop& mainloop, const typename Store::Params& store, std::int64_t blocks,
                          int splits, int sm_count, cudaStream_t stream) {
  if constexpr (kTokenTiles == 1) {
    if (choose_variant(blocks, splits, sm_count) == Variant::kSingles) {
      return launch<Element, Variant::kSingles, Store>(mainloop, store, blocks, splits, stream);
    }
    return launch<Element, Variant::kWide, Store>(mainloop, store, blocks, splits, stream);
  } else {
    constexpr int kRowTokens = kTokens * kTokenTiles;
    if (mainloop.M > kRowTokens) {
      const unsigned token_rows = static_cast<unsigned>((mainloop.M + kRowTokens - 1) / kRowTokens);
      return launch_ctas<Variant::kWide>(kernel_of<Element, Variant::kWide, Store, kTokenTiles, true>(), blocks, splits,
                                         token_rows, stream, mainloop, store);
    }
    if (!runs_block_pairs(mainloop.rows, mainloop.K)) {
      return launch<Element, Variant::kWide, Store, kTokenTiles>(mainloop, store, blocks, splits, stream);
    }
    if (block_pairs_are_wide(blocks, splits, sm_count)) {
      return launch<Element, Variant::kWidePairs, Store, kTokenTiles>(mainloop, store, blocks, splits, stream);
    }
    return launch<Element, Variant::kPairs, Store, kTokenTiles>(mainloop, store, blocks, splits, stream);
  }
}

}  // namespace epifuse::kernels::sm90::warp_mma

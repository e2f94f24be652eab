// The gated MLP for a few tokens (decode), where the run time is the weight read: warps stream
// packed weight rows from global memory straight into mma.sync A fragments (no TMA, no shared
// memory staging, no wgmma tile of 64 rows to fill), the tokens on the 8-wide N side. Forced only:
// dispatch keeps the swapped CUTLASS kernel, which it did not beat on enough models
// (docs/heuristics.md).
//
// Work: a CTA owns kGroups blocks of 16 packed rows (8 gate rows, then their 8 up rows:
// packing/gate_up.hpp), its warps share the K loop in 64-element steps, and `splits` CTAs of a
// cluster share it further (narrow weights). Partial sums meet in the first CTA's shared memory
// (distributed shared memory), summed in a fixed order: results do not depend on timing.
//
// Fragments: mma.m16n8k16 gives lane (g, t) = (lane / 4, lane % 4) A elements of rows g and g + 8
// at k slots {2t, 2t+1, 2t+8, 2t+9} and B elements of column g at the same slots. Any one-to-one
// map of k to slots, used alike for A and B, leaves the sum unchanged; so each lane loads 16
// contiguous bytes per row (elements e0..e7 at k = 64·step + 16t + 8c + e) and feeds e0-e3 to one
// mma and e4-e7 to the next, and loads x the same way. The accumulator gives lane (g, t) the gate
// (row g) and up (row g + 8) value of output column 8·block + g for tokens 2t and 2t + 1: every
// pair meets in one thread, as in the wgmma kernels.
#pragma once

#include <cooperative_groups.h>
#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include <cstdint>
#include <string>
#include <type_traits>

#include "epifuse/detail/launch_plan.hpp"
#include "epifuse/gated_mlp.hpp"
#include "epilogue/gated_math.cuh"

namespace epifuse::kernels::sm90 {
namespace warp_mma {

constexpr int kStepK = 64;       // k per warp step: 4 lanes x 16 elements
constexpr int kMaxSplits = 8;    // CTAs per cluster: the portable maximum
constexpr int kTokens = 8;       // the mma's N

struct Params {
  const void* x;
  std::int64_t ldx;
  int M;
  const void* w;
  std::int64_t ldw;
  std::int64_t K;
  const float* bias;  // packed [2N] or null
  void* out;
  std::int64_t ldo;
  std::int64_t steps_per_split;
  device::GatedMath math;
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

// One gate/up pair per token of a lane's two tokens, for limit_and_activate.
struct TokenPair {
  static constexpr int kElements = 2;
  float v[2];
  __device__ float& operator[](int i) { return v[i]; }
  __device__ float operator[](int i) const { return v[i]; }
};

template <class Element>
__device__ __forceinline__ Element round_to(float v) {
  if constexpr (std::is_same_v<Element, __nv_bfloat16>) {
    return __float2bfloat16_rn(v);
  } else {
    return __float2half_rn(v);
  }
}

// Grid: splits x (N / 8 / kGroups) CTAs in clusters of `splits` along x.
template <class Element, int kWarps, int kUnroll, int kGroups>
__global__ void __launch_bounds__(kWarps * 32) gated_kernel(const Params p) {
  namespace cg = cooperative_groups;
  const int lane = threadIdx.x % 32, warp = threadIdx.x / 32;
  const int g = lane / 4, t = lane % 4;
  const cg::cluster_group cluster = cg::this_cluster();
  const int splits = static_cast<int>(cluster.num_blocks());
  const int split = static_cast<int>(cluster.block_rank());
  const std::int64_t first_block = blockIdx.x / splits * kGroups;
  const Element* w = static_cast<const Element*>(p.w);
  const Element* x = static_cast<const Element*>(p.x);
  const std::int64_t steps = (p.K + kStepK - 1) / kStepK;
  const std::int64_t begin = split * p.steps_per_split;
  const std::int64_t end = min(begin + p.steps_per_split, steps);
  // A CTA may write into the first CTA's shared memory only once that CTA runs: arrive now, wait
  // before the write, so the main loop hides the wait.
  asm volatile("barrier.cluster.arrive.relaxed.aligned;\n" ::: "memory");

  float acc[kGroups][4] = {};
  const uint4 zero = make_uint4(0, 0, 0, 0);
  // Each CTA starts its K loop at its own step and wraps around, so that the CTAs running at once
  // read at scattered offsets of their rows rather than all at the same one (rows lie a power of
  // two of bytes apart in most models). Offsets count elements from this lane's first column of
  // the split (32-bit: K < 2^31).
  const int count = static_cast<int>(max(end - begin, std::int64_t{0}));
  const int rotation = count > 0 ? static_cast<int>(blockIdx.x / splits * 37ull % count) : 0;
  const std::int64_t first_column = begin * kStepK + 16 * t;
  const int columns_left = static_cast<int>(p.K - first_column);
  const Element* gate_rows[kGroups];
#pragma unroll
  for (int r = 0; r < kGroups; ++r) gate_rows[r] = w + ((first_block + r) * 16 + g) * p.ldw + first_column;
  const std::int64_t up_rows = 8 * p.ldw;  // the up row lies 8 rows below its gate row
  const Element* x_row = x + g * p.ldx + first_column;
  for (int first = warp; first < count; first += kWarps * kUnroll) {
    // All loads of kUnroll steps first, then their mmas: bytes in flight hide the memory latency.
    uint4 gate[kUnroll][kGroups][2], up[kUnroll][kGroups][2], xs[kUnroll][2];
#pragma unroll
    for (int u = 0; u < kUnroll; ++u) {
      const int i = first + u * kWarps;
      const int step = i + rotation < count ? i + rotation : i + rotation - count;
#pragma unroll
      for (int c = 0; c < 2; ++c) {
        const int offset = step * kStepK + 8 * c;
        const bool in_k = i < count && offset < columns_left;  // K is a multiple of 8: chunks are whole or absent
#pragma unroll
        for (int r = 0; r < kGroups; ++r) {
          gate[u][r][c] = in_k ? __ldcs(reinterpret_cast<const uint4*>(gate_rows[r] + offset)) : zero;
          up[u][r][c] = in_k ? __ldcs(reinterpret_cast<const uint4*>(gate_rows[r] + up_rows + offset)) : zero;
        }
        xs[u][c] = in_k && g < p.M ? __ldg(reinterpret_cast<const uint4*>(x_row + offset)) : zero;
      }
    }
#pragma unroll
    for (int u = 0; u < kUnroll; ++u) {
#pragma unroll
      for (int c = 0; c < 2; ++c) {
#pragma unroll
        for (int r = 0; r < kGroups; ++r) {
          mma_16x8x16<Element>(acc[r], gate[u][r][c].x, up[u][r][c].x, gate[u][r][c].y, up[u][r][c].y, xs[u][c].x,
                               xs[u][c].y);
          mma_16x8x16<Element>(acc[r], gate[u][r][c].z, up[u][r][c].z, gate[u][r][c].w, up[u][r][c].w, xs[u][c].z,
                               xs[u][c].w);
        }
      }
    }
  }

  constexpr int kValues = kGroups * 4;
  __shared__ float by_warp[kWarps][kValues][32];
  __shared__ float by_split[kMaxSplits][kValues][32];  // used in the cluster's first CTA
#pragma unroll
  for (int r = 0; r < kGroups; ++r) {
#pragma unroll
    for (int i = 0; i < 4; ++i) by_warp[warp][r * 4 + i][lane] = acc[r][i];
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

  Element* out = static_cast<Element*>(p.out);
#pragma unroll
  for (int r = 0; r < kGroups; ++r) {
    float sum[4];
#pragma unroll
    for (int i = 0; i < 4; ++i) {
      sum[i] = by_split[0][r * 4 + i][lane];
      for (int q = 1; q < splits; ++q) sum[i] += by_split[q][r * 4 + i][lane];
    }
    const std::int64_t block = first_block + r;
    const float bias_gate = p.bias != nullptr ? p.bias[block * 16 + g] : 0.0f;
    const float bias_up = p.bias != nullptr ? p.bias[block * 16 + 8 + g] : 0.0f;
    TokenPair gate_pair{{sum[0] + bias_gate, sum[1] + bias_gate}};
    TokenPair up_pair{{sum[2] + bias_up, sum[3] + bias_up}};
    device::limit_and_activate(gate_pair, up_pair, p.math);
#pragma unroll
    for (int j = 0; j < 2; ++j) {
      const int token = 2 * t + j;
      if (token < p.M) out[token * p.ldo + block * 8 + g] = round_to<Element>(p.math.scale * gate_pair[j] * up_pair[j]);
    }
  }
}

// The compiled variants: CTAs of 16 or 32 packed rows, 4 or 8 warps.
enum class Variant { kWide, kPairs, kSingles };

template <class Element, Variant v>
constexpr auto kernel_of() {
  if constexpr (v == Variant::kWide) {
    return &gated_kernel<Element, 8, 4, 1>;
  } else if constexpr (v == Variant::kPairs) {
    return &gated_kernel<Element, 4, 4, 2>;
  } else {
    return &gated_kernel<Element, 4, 4, 1>;
  }
}

constexpr int groups_of(Variant v) { return v == Variant::kPairs ? 2 : 1; }

template <class Element, Variant v>
int resident_ctas_per_sm() {
  static const int ctas = [] {
    int n = 0;
    const int threads = v == Variant::kWide ? 256 : 128;
    return cudaOccupancyMaxActiveBlocksPerMultiprocessor(&n, kernel_of<Element, v>(), threads, 0) == cudaSuccess ? n : 1;
  }();
  return ctas;
}

// Read off epifuse-warp-mma-probe on an H200 (eight models' MLPs and two narrow weights, 1 and 8
// tokens): a CTA count of either many waves of the resident CTAs (the last wave is a small share)
// or less than one (every CTA streams from start to end) ran fastest; one to two waves left SMs
// idle at the end. With this kernel the choice was within 5 % of the fastest variant on the
// MLPs and 14-15 % behind it on the narrow weights (bench/results/tuning/issue9/warp-mma/).
template <class Element>
Variant choose_variant(std::int64_t blocks, int splits, int sm_count) {
  const auto waves = [&](Variant v, int resident) {
    return static_cast<double>(blocks / groups_of(v) * splits) / (static_cast<double>(resident) * sm_count);
  };
  if (splits > 1 || waves(Variant::kWide, resident_ctas_per_sm<Element, Variant::kWide>()) >= 2.5) return Variant::kWide;
  if (blocks % 2 == 0 && waves(Variant::kPairs, resident_ctas_per_sm<Element, Variant::kPairs>()) <= 0.9) {
    return Variant::kPairs;
  }
  return Variant::kSingles;
}

template <class Element, Variant v>
cudaError_t launch(const Params& params, std::int64_t blocks, int splits, cudaStream_t stream) {
  cudaLaunchConfig_t config = {};
  config.gridDim = dim3(static_cast<unsigned>(blocks / groups_of(v) * splits));
  config.blockDim = dim3(v == Variant::kWide ? 256 : 128);
  config.stream = stream;
  cudaLaunchAttribute cluster[1];
  cluster[0].id = cudaLaunchAttributeClusterDimension;
  cluster[0].val.clusterDim.x = static_cast<unsigned>(splits);
  cluster[0].val.clusterDim.y = 1;
  cluster[0].val.clusterDim.z = 1;
  config.attrs = cluster;
  config.numAttrs = 1;
  return cudaLaunchKernelEx(&config, kernel_of<Element, v>(), params);
}

}  // namespace warp_mma

// The registry's launcher of a warp_mma gated row (instantiate.cuh).
template <class Row>
struct WarpMmaGatedKernel {
  static constexpr KernelKey kKey = Row::kKey;
  static_assert(kKey.op == Op::kGatedMlp && kKey.arch == Arch::kSm90 && kKey.swap_ab, "a swapped gated row");
  static_assert(kKey.tile.m == 16 && kKey.tile.n == warp_mma::kTokens && kKey.tile.k == warp_mma::kStepK,
                "the mma.m16n8k16 warp tile: 16 packed rows, 8 tokens, 64-element k steps");
  static_assert(kKey.a == kKey.b && kKey.d == kKey.a, "x, the weight and out share one element type");
  using Element = std::conditional_t<kKey.a == DType::kBF16, __nv_bfloat16, __half>;
  static_assert(kKey.a == DType::kBF16 || kKey.a == DType::kFP16, "bf16 or fp16");

  static std::size_t workspace_bytes(const GatedMlpArgs&, const detail::LaunchPlan&) { return 0; }

  static Status run(const GatedMlpArgs& args, const detail::LaunchPlan& plan, cudaStream_t stream) {
    using warp_mma::Variant;
    const std::int64_t blocks = args.w.N / 8;
    const int splits = plan.splits;
    const std::int64_t steps = (args.w.K + warp_mma::kStepK - 1) / warp_mma::kStepK;
    const warp_mma::Params params{args.x,      args.ldx, static_cast<int>(args.M), args.w.weight,
                                  args.w.ld,   args.w.K, args.w.bias,              args.out,
                                  args.ldo,    (steps + splits - 1) / splits,      device::gated_math(args)};
    cudaError_t err = cudaSuccess;
    switch (warp_mma::choose_variant<Element>(blocks, splits, plan.sm_count)) {
      case Variant::kWide: err = warp_mma::launch<Element, Variant::kWide>(params, blocks, splits, stream); break;
      case Variant::kPairs: err = warp_mma::launch<Element, Variant::kPairs>(params, blocks, splits, stream); break;
      case Variant::kSingles: err = warp_mma::launch<Element, Variant::kSingles>(params, blocks, splits, stream); break;
    }
    if (err != cudaSuccess) {
      return Status::cuda_error(std::string("gated_mlp: launching ") + name(kKey) + ": " + cudaGetErrorName(err) + " (" +
                                cudaGetErrorString(err) + ")");
    }
    return Status::success();
  }
};

}  // namespace epifuse::kernels::sm90

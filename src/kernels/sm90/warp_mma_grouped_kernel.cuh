// The grouped ops (a MoE layer's experts) for a few rows per expert (decode) on the warp-mma
// kernel (warp_mma_mainloop.cuh): one launch, no setup kernel and no TMA descriptors. The CUTLASS
// grouped kernels need both before the first weight byte moves (grouped_setup.cuh), a fixed cost
// that small experts' weights do not hide.
//
// Grid: x as the dense kernel's over one expert's weight blocks, y a slot per expert that can have
// rows (min(E, T) of them). A slot's CTAs find the slot-th expert with rows from the offsets on the
// device, by the setup kernel's rule (expert e's rows are [P(e), P(e+1)), P the running maximum
// of the offsets clamped into [0, T]), then stream that expert's weight once per 8 of its rows;
// slots past the last such expert return at once.
#pragma once

#include <cstdint>
#include <string>
#include <type_traits>

#include "epifuse/detail/launch_plan.hpp"
#include "epifuse/grouped_gated_mlp.hpp"
#include "epifuse/grouped_gemm.hpp"
#include "kernels/sm90/warp_mma_gated_kernel.cuh"
#include "kernels/sm90/warp_mma_gemm_kernel.cuh"
#include "kernels/sm90/warp_mma_grouped_rules.hpp"
#include "kernels/sm90/warp_mma_mainloop.cuh"

namespace epifuse::kernels::sm90 {
namespace warp_mma {

struct Experts {
  const std::int32_t* offsets;  // [E + 1], on the device
  int count;                    // E
  std::int64_t tokens;          // T: the offsets are clamped into [0, T]
  std::int64_t weight_stride;   // elements from one expert's weight to the next
};

struct ExpertRows {
  int expert = -1;  // -1: the slot has no expert
  std::int64_t first = 0;
  std::int64_t rows = 0;
};

// Run by one whole warp: the slot-th expert with rows. Chunks of 32 experts, a lane per expert;
// the first 8 chunks' offsets are loaded before any is used, so that up to 256 experts cost one
// memory latency.
__device__ __forceinline__ ExpertRows expert_of_slot(const Experts& e, int slot) {
  constexpr int kLoadedChunks = 8;
  const int lane = threadIdx.x % 32;
  auto clamped = [&](int i) {
    return i <= e.count ? min(max(std::int64_t{e.offsets[i]}, std::int64_t{0}), e.tokens) : std::int64_t{0};
  };
  std::int64_t at[kLoadedChunks], next[kLoadedChunks];
#pragma unroll
  for (int c = 0; c < kLoadedChunks; ++c) {
    const int i = 32 * c + lane;
    at[c] = i < e.count ? clamped(i) : 0;
    next[c] = i < e.count ? clamped(i + 1) : 0;
  }
  std::int64_t carried = 0;  // P of the last expert before the chunk
  int seen = 0;              // experts with rows before the chunk
  for (int c = 0; 32 * c < e.count; ++c) {
    const int i = 32 * c + lane;
    std::int64_t here = 0, after = 0;
    if (c < kLoadedChunks) {
#pragma unroll
      for (int k = 0; k < kLoadedChunks; ++k) {
        if (k == c) {
          here = at[k];
          after = next[k];
        }
      }
    } else if (i < e.count) {
      here = clamped(i);
      after = clamped(i + 1);
    }
    std::int64_t first = here;  // P(i): the running maximum through i
#pragma unroll
    for (int d = 1; d < 32; d *= 2) {
      const std::int64_t before = __shfl_up_sync(0xffffffffu, first, d);
      if (lane >= d) first = max(first, before);
    }
    first = max(first, carried);
    const bool has_rows = i < e.count && after > first;  // P(i + 1) = max(P(i), after)
    const unsigned with_rows = __ballot_sync(0xffffffffu, has_rows);
    const int n = __popc(with_rows);
    if (slot < seen + n) {
      const int owner = __fns(with_rows, 0, slot - seen + 1);
      ExpertRows r;
      r.expert = 32 * c + owner;
      r.first = __shfl_sync(0xffffffffu, first, owner);
      r.rows = __shfl_sync(0xffffffffu, after, owner) - r.first;
      return r;
    }
    seen += n;
    carried = __shfl_sync(0xffffffffu, first, 31);
  }
  return {};
}

// Grid: splits x (blocks / kGroups) by slots CTAs, clusters of `splits` along x. `p` and `store`
// are expert 0's with its first row at row 0; each slot moves them to its expert.
template <class Element, int kWarps, int kUnroll, int kGroups, class Store>
__global__ void __launch_bounds__(kWarps * 32)
    grouped_kernel(const Mainloop p, const typename Store::Params store, const Experts experts) {
  __shared__ ExpertRows found;
  if (threadIdx.x < 32) {
    const ExpertRows r = expert_of_slot(experts, static_cast<int>(blockIdx.y));
    if (threadIdx.x == 0) found = r;
  }
  __syncthreads();
  const ExpertRows r = found;
  if (r.expert < 0) return;  // the whole cluster: its CTAs share blockIdx.y
  const unsigned splits = cooperative_groups::this_cluster().num_blocks();
  const std::uint64_t cta_blocks = blockIdx.x / splits;
  Mainloop q = p;
  q.w = static_cast<const Element*>(p.w) + r.expert * experts.weight_stride;
  for (std::int64_t row = 0; row < r.rows; row += kTokens) {
    q.x = static_cast<const Element*>(p.x) + (r.first + row) * p.ldx;
    q.M = static_cast<int>(min(r.rows - row, std::int64_t{kTokens}));
    pass<Element, kWarps, kUnroll, kGroups, 1, Store>(q, Store::template at_rows<Element>(store, r.expert, r.first + row),
                                                      cta_blocks * kGroups, cta_blocks + 13ull * blockIdx.y, row > 0);
  }
}

template <class Element, Variant v, class Store>
cudaError_t launch_grouped(const Mainloop& mainloop, const typename Store::Params& store, const Experts& experts,
                           std::int64_t blocks, int splits, int slots, cudaStream_t stream) {
  return launch_ctas<v>(&grouped_kernel<Element, warps_of(v), kUnrollSteps, groups_of(v), Store>, blocks, splits,
                        static_cast<unsigned>(slots), stream, mainloop, store, experts);
}

// The CTAs for all slots' blocks, by the length of the rows (K; warp_mma_grouped_rules.hpp):
// gate/up rows under kGatedSinglesMinK elements on the pairs (4 warps over two blocks of 16 rows;
// the singles where an expert's blocks are odd), longer ones on the singles (4 warps, one block);
// grouped GEMM rows under kWideRowsMinK on the singles, longer ones on the wide CTAs (8 warps, one
// block). H200, each variant launched directly over the same experts, after two cuBLASLt GEMMs
// over other weights, with load_weight's L2 policy (bench/results/moe/decode-warp-mma/l2-policy/):
// - gate/up, seven models at 1, 2 and 4 tokens: on rows under 6144 (Mixtral-8x7B, Qwen2-57B-A14B,
//   Qwen3-30B-A3B, OLMoE-1B-7B, gpt-oss-20b) the pairs took 0.89-1.02x the singles' time (15
//   points); on rows of 6144-7168 (DeepSeek-V3, Mixtral-8x22B) the singles took 0.90-0.97x the
//   pairs' at one token and 1.01-1.03x at 2-4. The wide CTAs took 0.97-1.24x the pairs' time.
// - down projections at 1, 2 and 4 tokens: on rows of 768-2880 neither led (the pairs took
//   0.86-1.26x the singles' time, 15 points); on rows of 8192-16384 (Mixtral-8x7B and 8x22B, DBRX,
//   Llama-4 Scout) the wide took 0.56-1.05x the 128x32 kernel's time, the pairs 0.86-1.31x.
// Launches the CTAs above over all slots' blocks; only these two variants of each op are built.
template <class Element, class Store>
cudaError_t launch_grouped_chosen(const Mainloop& mainloop, const typename Store::Params& store,
                                  const Experts& experts, std::int64_t blocks, int splits, int slots,
                                  cudaStream_t stream) {
  if constexpr (std::is_same_v<Store, GatedStore>) {
    if (gated_runs_pairs(mainloop.K) && blocks % 2 == 0) {
      return launch_grouped<Element, Variant::kPairs, Store>(mainloop, store, experts, blocks, splits, slots, stream);
    }
  } else if (mainloop.K >= kWideRowsMinK) {
    return launch_grouped<Element, Variant::kWide, Store>(mainloop, store, experts, blocks, splits, slots, stream);
  }
  return launch_grouped<Element, Variant::kSingles, Store>(mainloop, store, experts, blocks, splits, slots, stream);
}

// The experts that can have rows: at most one per row. The grid's y holds them.
inline Status slots_of(const char* op, std::int64_t experts, std::int64_t rows, int* slots) {
  const std::int64_t n = rows < experts ? rows : experts;
  if (n > 65535) {
    return Status::not_supported(std::string(op) + ": the warp-mma grouped kernel takes at most 65535 experts with rows");
  }
  *slots = static_cast<int>(n);
  return Status::success();
}

inline Status launched(const char* op, const KernelKey& key, cudaError_t err) {
  if (err == cudaSuccess) return Status::success();
  return Status::cuda_error(std::string(op) + ": launching " + name(key) + ": " + cudaGetErrorName(err) + " (" +
                            cudaGetErrorString(err) + ")");
}

}  // namespace warp_mma

template <DType kDType>
using WarpMmaElement = std::conditional_t<kDType == DType::kBF16, __nv_bfloat16, __half>;

// The registry's launcher of a grouped warp_mma gated row (instantiate.cuh).
template <class Row>
struct WarpMmaGroupedGatedKernel {
  static constexpr KernelKey kKey = Row::kKey;
  static_assert(kKey.op == Op::kGatedMlp && kKey.grouping == Grouping::kGrouped && kKey.swap_ab, "a grouped gated row");
  static_assert(kKey.tile.m == warp_mma::kBlockRows && kKey.tile.n == warp_mma::kTokens &&
                    kKey.tile.k == warp_mma::kStepK,
                "the mma.m16n8k16 warp tile: 16 packed rows, 8 tokens, 64-element k steps");
  static_assert(kKey.a == kKey.b && kKey.d == kKey.a, "x, the weights and out share one element type");
  static_assert(kKey.a == DType::kBF16 || kKey.a == DType::kFP16, "bf16 or fp16");
  using Element = WarpMmaElement<kKey.a>;

  static std::size_t workspace_bytes(const GroupedGatedMlpArgs&, const detail::LaunchPlan&) { return 0; }

  static Status run(const GroupedGatedMlpArgs& args, const detail::LaunchPlan& plan, cudaStream_t stream) {
    const GatedMlpArgs& g = args.gated;
    int slots = 0;
    if (Status s = warp_mma::slots_of("grouped_gated_mlp", args.experts, g.M, &slots); !s.ok()) return s;
    const int splits = plan.splits;
    const std::int64_t steps = (g.w.K + warp_mma::kStepK - 1) / warp_mma::kStepK;
    const warp_mma::Mainloop mainloop{g.x,      g.ldx, 0, g.w.weight, g.w.ld, g.w.K, 2 * g.w.N,
                                      (steps + splits - 1) / splits};
    const warp_mma::GatedStore::Params store{g.w.bias, g.out, g.ldo, device::gated_math(g), args.bias_stride};
    const warp_mma::Experts experts{args.expert_offsets, static_cast<int>(args.experts), g.M, args.weight_stride};
    return warp_mma::launched("grouped_gated_mlp", kKey,
                              warp_mma::launch_grouped_chosen<Element, warp_mma::GatedStore>(
                                  mainloop, store, experts, g.w.N / 8, splits, slots, stream));
  }
};

// The registry's launcher of a grouped warp_mma GEMM row (the cast epilogue).
template <class Row>
struct WarpMmaGroupedGemmKernel {
  static constexpr KernelKey kKey = Row::kKey;
  static_assert(kKey.op == Op::kGemm && kKey.grouping == Grouping::kGrouped && kKey.swap_ab, "a grouped GEMM row");
  static_assert(kKey.tile.m == warp_mma::kBlockRows && kKey.tile.n == warp_mma::kTokens &&
                    kKey.tile.k == warp_mma::kStepK,
                "the mma.m16n8k16 warp tile: 16 weight rows, 8 tokens, 64-element k steps");
  static_assert(kKey.a == kKey.b && kKey.d == kKey.a, "A, B and D share one element type");
  static_assert(kKey.a == DType::kBF16 || kKey.a == DType::kFP16, "bf16 or fp16");
  static_assert(kKey.epilogue == EpilogueCoverage::kCastOnly && !kKey.has_c, "the cast alone, without C");
  using Element = WarpMmaElement<kKey.a>;

  static std::size_t workspace_bytes(const GroupedGemmArgs&, const detail::LaunchPlan&) { return 0; }

  static Status run(const GroupedGemmArgs& args, const detail::LaunchPlan& plan, cudaStream_t stream) {
    const GemmArgs& g = args.gemm;
    int slots = 0;
    if (Status s = warp_mma::slots_of("grouped_gemm", args.experts, g.M, &slots); !s.ok()) return s;
    const int splits = plan.splits;
    const std::int64_t steps = (g.K + warp_mma::kStepK - 1) / warp_mma::kStepK;
    const warp_mma::Mainloop mainloop{g.A, g.lda, 0, g.B, g.ldb, g.K, g.N, (steps + splits - 1) / splits};
    const warp_mma::GemmStore::Params store{1.0f, nullptr, device::ActivationProgram{}, g.D, g.ldd, g.N};
    const warp_mma::Experts experts{args.expert_offsets, static_cast<int>(args.experts), g.M, args.weight_stride};
    const std::int64_t blocks = (g.N + warp_mma::kBlockRows - 1) / warp_mma::kBlockRows;
    return warp_mma::launched("grouped_gemm", kKey,
                              warp_mma::launch_grouped_chosen<Element, warp_mma::GemmStore>(
                                  mainloop, store, experts, blocks, splits, slots, stream));
  }
};

}  // namespace epifuse::kernels::sm90

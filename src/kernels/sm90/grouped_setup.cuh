// What every sm90 grouped family (a MoE layer's experts in one launch) does around its CUTLASS
// kernels: the call's workspace (each expert's first row, each launch's expert count and group
// arrays, then the kernels' own), the one setup kernel that fills it from the expert offsets on
// the device, so that the host never sees the group sizes and the call is capturable in a CUDA
// graph, and the launches.
#pragma once

#include "epifuse/detail/cutlass_driver_calls.hpp"  // first: it sets how CUTLASS calls the driver

#include <cub/block/block_scan.cuh>
#include <cute/tensor.hpp>

#include <cstddef>
#include <cstdint>

#include "epifuse/detail/launch_plan.hpp"
#include "epifuse/detail/sm90_assembly.cuh"
#include "epifuse/detail/sm90_launch.cuh"

namespace epifuse::kernels::sm90 {

// The workspace of a grouped call over E experts and L launches: each expert's first row,
// each launch's expert count, each launch's group arrays (every array 256-byte aligned), then the
// kernels' own part, whose per-SM TMA descriptors need 64-byte alignment: it starts at the first
// 128-byte boundary past the arrays (the caller's workspace is only 16-byte aligned). The
// launches run in turn on one stream and share that part; each has its own arrays, which the
// setup kernel writes before the first launch.
template <class Element, class ElementD>
struct GroupedWorkspace {
  static constexpr std::size_t kKernelAlignment = 128;
  static constexpr bool kHasD = !cute::is_void_v<ElementD>;
  template <bool kSwapAB>
  using Arrays = detail::sm90::GroupArrays<Element, ElementD, kSwapAB>;

  // Offsets from the workspace's start; shapes ... stride_d within one launch's arrays.
  std::size_t first_rows = 0, experts_here = 0, launch_arrays = 0, launch_bytes = 0, kernel = 0;
  std::size_t shapes = 0, a = 0, stride_a = 0, b = 0, stride_b = 0, d = 0, stride_d = 0;
  void* base = nullptr;  // null for a workspace-size query

  CUTLASS_HOST_DEVICE static std::size_t aligned(std::size_t bytes) { return (bytes + 255) / 256 * 256; }

  CUTLASS_HOST_DEVICE GroupedWorkspace(std::int64_t experts, int launches, void* workspace) : base(workspace) {
    static_assert(sizeof(typename Arrays<true>::StrideD) == sizeof(typename Arrays<false>::StrideD),
                  "swapped and unswapped launches' arrays take the same room");
    const auto e = static_cast<std::size_t>(experts);
    experts_here = first_rows + aligned(e * sizeof(std::int32_t));
    launch_arrays = experts_here + aligned(detail::GroupTiers::kMax * sizeof(std::int32_t));
    a = shapes + aligned(e * sizeof(typename Arrays<false>::GroupShape));
    stride_a = a + aligned(e * sizeof(const Element*));
    b = stride_a + aligned(e * sizeof(typename Arrays<false>::StrideAB));
    stride_b = b + aligned(e * sizeof(const Element*));
    d = stride_b + aligned(e * sizeof(typename Arrays<false>::StrideAB));
    stride_d = d + (kHasD ? aligned(e * sizeof(void*)) : 0);
    launch_bytes = stride_d + (kHasD ? aligned(e * sizeof(typename Arrays<false>::StrideD)) : 0);
    kernel = launch_arrays + static_cast<std::size_t>(launches) * launch_bytes;
  }

  template <class T>
  CUTLASS_HOST_DEVICE T* at(std::size_t offset) const {
    return base != nullptr ? reinterpret_cast<T*>(static_cast<char*>(base) + offset) : nullptr;
  }
  // The arrays of the launch of tier `tier`, whose kernel is swapped or not.
  template <bool kSwapAB>
  CUTLASS_HOST_DEVICE Arrays<kSwapAB> arrays(int tier) const {
    using A = Arrays<kSwapAB>;
    const std::size_t at_launch = launch_arrays + static_cast<std::size_t>(tier) * launch_bytes;
    return {at<typename A::GroupShape>(at_launch + shapes),   at<const Element*>(at_launch + a),
            at<typename A::StrideAB>(at_launch + stride_a),   at<const Element*>(at_launch + b),
            at<typename A::StrideAB>(at_launch + stride_b),   kHasD ? at<ElementD*>(at_launch + d) : nullptr,
            kHasD ? at<typename A::StrideD>(at_launch + stride_d) : nullptr};
  }
  CUTLASS_HOST_DEVICE std::int32_t* group_first_rows() const { return at<std::int32_t>(first_rows); }
  CUTLASS_HOST_DEVICE std::int32_t* launch_experts(int tier) const { return at<std::int32_t>(experts_here) + tier; }
  void* kernel_workspace() const {
    const auto start = reinterpret_cast<std::uintptr_t>(at<char>(kernel));
    return reinterpret_cast<void*>((start + kKernelAlignment - 1) / kKernelAlignment * kKernelAlignment);
  }
  // The kernel's part depends on the SM count and the experts, not on where the arrays lie.
  std::size_t bytes(std::size_t kernel_bytes) const { return kernel + kKernelAlignment + kernel_bytes; }
};

constexpr int kSetUpThreads = 256;
// Every grouped kernel's tiles cover 128 rows of the weight (the kernel table's grouped rows).
constexpr int kWeightTileRows = 128;

// Expert e in one launch's arrays: `rows` rows of x from row `begin` (0 rows: another launch
// computes the expert), its weight at w, and its rows of out when the kernel stores D.
template <class Arrays, class Element, class ElementD>
__device__ void set_up_group(const Arrays& arrays, int e, std::int64_t begin, int rows, int weight_rows, int K,
                             const Element* x, std::int64_t ldx, const Element* w, std::int64_t ldw, ElementD* out,
                             std::int64_t ldo) {
  arrays.set_group(e, rows, weight_rows, K, x + begin * ldx, ldx, w, ldw);
  if constexpr (!cute::is_void_v<ElementD>) arrays.set_output(e, out + begin * ldo, ldo);
}

// What the setup kernel sums over the experts with rows, by the tier GroupTiers::tier_of gives
// each (before the wide tiers' fill rule): per tier its token tiles, and for the launch model
// (GroupTiers::one_launch_tier) its experts, their rows, their token tiles on the first padded
// tier (where the fill rule may move them) and every expert's token tiles on each tier; then the
// experts and their rows. 32-bit: a call's rows fit its int32 offsets.
struct TierSums {
  static constexpr int kMax = detail::GroupTiers::kMax;
  static constexpr int kTiles = 0, kExperts = kMax, kRows = 2 * kMax, kTilesIfMoved = 3 * kMax, kTilesAllOn = 4 * kMax;
  static constexpr int kAllExperts = 5 * kMax, kAllRows = 5 * kMax + 1, kCount = 5 * kMax + 2;
  int sum[kCount];

  // Each thread's experts summed in registers, each warp's by a reduction, then one shared atomic
  // per warp and sum (per-expert atomics on a few shared addresses serialize; 64-bit ones are
  // compare-and-swap loops, which made the kernel tens of µs slower).
  __device__ static void of_experts(TierSums* block, const detail::GroupTiers& tiers, const std::int32_t* first_rows,
                                    std::int64_t last, int experts) {
    const int first_padded = tiers.few_rows_max > 0 ? 1 : 0;
    int sum[kCount] = {};
    for (int e = threadIdx.x; e < experts; e += kSetUpThreads) {
      const std::int64_t end = e + 1 < experts ? first_rows[e + 1] : last;
      const auto rows = static_cast<int>(end - first_rows[e]);
      if (rows == 0) continue;
      const int own = tiers.tier_of(rows);
      const int if_moved = (rows + tiers.tile_rows[first_padded] - 1) / tiers.tile_rows[first_padded];
      CUTLASS_PRAGMA_UNROLL
      for (int t = 0; t < kMax; ++t) {
        const int tiles = t < tiers.count ? (rows + tiers.tile_rows[t] - 1) / tiers.tile_rows[t] : 0;
        sum[kTilesAllOn + t] += tiles;
        if (t == own) {
          sum[kTiles + t] += tiles;
          sum[kExperts + t] += 1;
          sum[kRows + t] += rows;
          sum[kTilesIfMoved + t] += if_moved;
        }
      }
      sum[kAllExperts] += 1;
      sum[kAllRows] += rows;
    }
    if (threadIdx.x < kCount) block->sum[threadIdx.x] = 0;
    __syncthreads();
    CUTLASS_PRAGMA_UNROLL
    for (int i = 0; i < kCount; ++i) {
      const int warp_sum = __reduce_add_sync(0xffffffffu, sum[i]);
      if (threadIdx.x % 32 == 0 && warp_sum != 0) atomicAdd(&block->sum[i], warp_sum);
    }
    __syncthreads();
  }

  // Whether the fill rule moves tier t's experts to the first padded tier: a wide tier whose
  // tiles would not fill the SMs once.
  __device__ bool moves(const detail::GroupTiers& tiers, int t, int weight_tiles, int sm_count) const {
    const int first_padded = tiers.few_rows_max > 0 ? 1 : 0;
    return t > first_padded && static_cast<std::int64_t>(sum[kTiles + t]) * weight_tiles < sm_count;
  }

  // GroupTiers::one_launch_tier on these sums, the rule's loads after its fill rule.
  __device__ int one_launch_tier(const detail::GroupTiers& tiers, int weight_tiles, int weight_rows, int K,
                                 int element_bytes, int sm_count) const {
    const int first_padded = tiers.few_rows_max > 0 ? 1 : 0;
    detail::TierLoad by_rule[kMax], all_on[kMax];
    for (int t = 0; t < kMax; ++t) {
      by_rule[t] = {sum[kTiles + t], sum[kExperts + t], sum[kRows + t]};
      all_on[t] = {sum[kTilesAllOn + t], sum[kAllExperts], sum[kAllRows]};
    }
    for (int t = 0; t < tiers.count; ++t) {
      if (!moves(tiers, t, weight_tiles, sm_count)) continue;
      by_rule[first_padded].token_tiles += sum[kTilesIfMoved + t];
      by_rule[first_padded].experts += by_rule[t].experts;
      by_rule[first_padded].rows += by_rule[t].rows;
      by_rule[t] = {0, 0, 0};
    }
    return tiers.one_launch_tier(by_rule, all_on, weight_rows, K, element_bytes, sm_count);
  }
};

// One block, once per call, before its first launch: expert e's rows are [P(e), P(e+1)) with
// P(e) the running maximum of offsets[0..e] clamped into [0, T], so that whatever the caller's
// offsets hold, the experts' runs are disjoint and inside the activations and the output. Each
// expert goes to the tier `tiers` gives its row count and every other launch gets it with no
// rows. A tier after the first padded one (a wide swapped kernel, grouped_heuristics.cpp) keeps
// its experts only when their tiles fill the SMs once; otherwise they run in the first padded
// tier (the unswapped kernel), since a launch of fewer tiles leaves SMs idle while the other
// launches wait (H200, grouped gate/up, Qwen2-57B-A14B Zipf 256 tokens: 591 µs at fcf4b81,
// 654 µs with the experts split by padding alone at b5d154d). Each launch's expert count goes to
// its `launch_experts`. Where the tiers' launch model is on (the grouped GEMM), one launch over
// every expert replaces the rule's launches when the model times it enough faster
// (GroupTiers::one_launch_tier). With an output (a family whose collective stores D), each expert's D is
// its rows of out. One setup kernel for all launches rather than one per launch: each took
// 6.7-7.2 µs of GPU time, an empty grouped kernel 2.6-2.7 (H200, ncu, Mixtral experts at 256 tokens,
// bench/results/moe/ncu-grouped-launches-3207ae9.csv).
template <class Element, class ElementD>
__global__ void __launch_bounds__(kSetUpThreads) set_up_groups(
    const GroupedWorkspace<Element, ElementD> workspace, const std::int32_t* offsets, int experts,
    std::int64_t tokens, const detail::GroupTiers tiers, int sm_count, int weight_rows, int K, const Element* x,
    std::int64_t ldx, const Element* w, std::int64_t weight_stride, std::int64_t ldw, ElementD* out,
    std::int64_t ldo) {
  using Scan = cub::BlockScan<std::int64_t, kSetUpThreads>;
  __shared__ typename Scan::TempStorage scan;
  __shared__ std::int64_t carried;  // the running maximum before this chunk
  __shared__ int here[detail::GroupTiers::kMax];  // each launch's experts
  __shared__ TierSums sums;
  __shared__ int one_tier;  // the launch model's one launch over every expert, or -1
  std::int32_t* first_rows = workspace.group_first_rows();
  if (threadIdx.x == 0) carried = 0;
  if (threadIdx.x < detail::GroupTiers::kMax) here[threadIdx.x] = 0;
  __syncthreads();
  for (int chunk = 0; chunk <= experts; chunk += kSetUpThreads) {
    const int i = chunk + static_cast<int>(threadIdx.x);  // offsets has experts + 1 entries
    const std::int64_t offset = i <= experts ? cute::min(cute::max(std::int64_t{offsets[i]}, std::int64_t{0}), tokens) : 0;
    std::int64_t running = 0, chunk_max = 0;
    Scan(scan).InclusiveScan(offset, running, [](std::int64_t a, std::int64_t b) { return a > b ? a : b; }, chunk_max);
    running = cute::max(running, carried);
    __syncthreads();
    if (i < experts) first_rows[i] = static_cast<std::int32_t>(running);
    if (threadIdx.x == 0) carried = cute::max(carried, chunk_max);
    __syncthreads();
  }
  // first_rows now holds P(e) for e < E; P(E) is the maximum over all offsets.
  const std::int64_t last = carried;
  auto rows_of = [&](int e) {
    const std::int64_t end = e + 1 < experts ? first_rows[e + 1] : last;
    return static_cast<int>(end - first_rows[e]);
  };
  TierSums::of_experts(&sums, tiers, first_rows, last, experts);
  const int first_padded = tiers.few_rows_max > 0 ? 1 : 0;
  const int weight_tiles = (weight_rows + kWeightTileRows - 1) / kWeightTileRows;
  if (threadIdx.x == 0) {
    one_tier = tiers.model.on ? sums.one_launch_tier(tiers, weight_tiles, weight_rows, K,
                                                     static_cast<int>(sizeof(Element)), sm_count)
                              : -1;
  }
  __syncthreads();
  auto rule_tier = [&](int rows) {
    const int tier = tiers.tier_of(rows);
    return sums.moves(tiers, tier, weight_tiles, sm_count) ? first_padded : tier;
  };
  for (int e = threadIdx.x; e < experts; e += kSetUpThreads) {
    const std::int64_t begin = first_rows[e];
    const int rows = rows_of(e);
    const int tier = rows == 0 ? -1 : one_tier >= 0 ? one_tier : rule_tier(rows);
    if (tier >= 0) atomicAdd(&here[tier], 1);
    const Element* weight = w + e * weight_stride;
    for (int launch = 0; launch < tiers.count; ++launch) {
      const int launch_rows = launch == tier ? rows : 0;
      if (tiers.swap_ab[launch]) {
        set_up_group(workspace.template arrays<true>(launch), e, begin, launch_rows, weight_rows, K, x, ldx, weight, ldw,
                     out, ldo);
      } else {
        set_up_group(workspace.template arrays<false>(launch), e, begin, launch_rows, weight_rows, K, x, ldx, weight,
                     ldw, out, ldo);
      }
    }
  }
  __syncthreads();
  if (threadIdx.x < tiers.count) *workspace.launch_experts(threadIdx.x) = here[threadIdx.x];
}

// The grouped kernel's entry: CUTLASS's device_kernel, except that every CTA returns at once when
// the setup kernel gave the launch no expert (the CTAs of an empty launch would otherwise set up
// the pipeline and walk every group's shape).
template <class Kernel>
__global__ void __launch_bounds__(Kernel::MaxThreadsPerBlock, Kernel::MinBlocksPerMultiprocessor)
    run_unless_idle(CUTLASS_GRID_CONSTANT const typename Kernel::Params params, const std::int32_t* experts_here) {
  if (*experts_here == 0) return;
  extern __shared__ char smem[];
  Kernel op;
  op(params, smem);
}

struct UnlessIdleEntry {
  const std::int32_t* experts_here;
  template <class Kernel>
  static constexpr auto function() {
    return run_unless_idle<Kernel>;
  }
  template <class Kernel>
  cudaError_t launch(const cudaLaunchConfig_t& config, const typename Kernel::Params& params) const {
    return cudaLaunchKernelEx(&config, function<Kernel>(), params, experts_here);
  }
};

// Launches the grouped kernel of `plan.group_tier` on `stream`, after the setup kernel when this
// is the call's first launch (tier 0); the kernel returns at once when it got no expert.
template <class Assembly, class Element, class ElementD>
Status launch_grouped(const GroupedWorkspace<Element, ElementD>& workspace,
                      const typename Assembly::Kernel::Arguments& arguments, const std::int32_t* offsets,
                      std::int64_t experts, std::int64_t tokens, int weight_rows, int K, const Element* x,
                      std::int64_t ldx, const Element* w, std::int64_t weight_stride, std::int64_t ldw, ElementD* out,
                      std::int64_t ldo, const detail::LaunchPlan& plan, cudaStream_t stream) {
  const detail::GroupTiers& tiers = plan.group_tiers;
  if (plan.group_tier < 0 || plan.group_tier >= tiers.count ||
      tiers.swap_ab[plan.group_tier] != Assembly::GroupArrays::kSwapped) {
    return Status::internal("a grouped launch's plan does not match its kernel's tier");
  }
  auto set_up = [&](cudaStream_t s) {
    if (plan.group_tier != 0) return Status::success();
    set_up_groups<Element, ElementD><<<1, kSetUpThreads, 0, s>>>(workspace, offsets, static_cast<int>(experts), tokens,
                                                                 tiers, plan.sm_count, weight_rows, K, x, ldx, w,
                                                                 weight_stride, ldw, out, ldo);
    if (cudaError_t err = cudaGetLastError(); err != cudaSuccess) {
      return detail::sm90::cuda_failure("launching the grouped setup kernel", err);
    }
    return Status::success();
  };
  return detail::sm90::launch<typename Assembly::Kernel, detail::sm90::NoTreeDescriptors>(
      arguments, workspace.kernel_workspace(), plan.device, stream, set_up,
      UnlessIdleEntry{workspace.launch_experts(plan.group_tier)});
}

}  // namespace epifuse::kernels::sm90

// What every sm90 grouped family (a MoE layer's experts in one launch) does around its CUTLASS
// kernel: the workspace (the experts' shapes, operand pointers and strides, each expert's first
// row, then the kernel's own), and the setup kernel that fills it from the expert offsets on the
// device, so that the host never sees the group sizes and the call is capturable in a CUDA graph.
#pragma once

#include <cub/block/block_scan.cuh>
#include <cute/tensor.hpp>

#include <cstddef>
#include <cstdint>

#include "epifuse/detail/launch_plan.hpp"
#include "epifuse/detail/sm90_launch.cuh"

namespace epifuse::kernels::sm90 {

// One block: expert e's rows are [P(e), P(e+1)) with P(e) the running maximum of offsets[0..e]
// clamped into [0, T], so that whatever the caller's offsets hold, the experts' runs are disjoint
// and inside the activations and the output. Experts whose row count `tiers` gives to another
// tier than `tier` get no rows here: another launch computes them. A tier after the first padded
// one (a wide swapped kernel, grouped_heuristics.cpp) keeps its experts only when their tiles fill
// the SMs once; otherwise they run in the first padded tier (the unswapped kernel), since a launch
// of fewer tiles leaves SMs idle while the other launches wait (H200, grouped gate/up,
// Qwen2-57B-A14B Zipf 256 tokens: 591 µs at fcf4b81, 654 µs with the experts split by padding
// alone at b5d154d). `experts_here` receives the number of experts this launch computes. With an
// output (a family whose collective stores D), each expert's D is its rows of out.
constexpr int kSetUpThreads = 256;
// Every grouped kernel's tiles cover 128 rows of the weight (the kernel table's grouped rows).
constexpr int kWeightTileRows = 128;

template <class Assembly, class ElementX, class ElementW, class ElementOut>
__global__ void __launch_bounds__(kSetUpThreads) set_up_groups(
    typename Assembly::GroupArrays arrays, std::int32_t* first_rows, std::int32_t* experts_here,
    const std::int32_t* offsets, int experts, std::int64_t tokens, const detail::GroupTiers tiers, int tier,
    int sm_count, int weight_rows, int K, const ElementX* x, std::int64_t ldx, const ElementW* w,
    std::int64_t weight_stride, std::int64_t ldw, ElementOut* out, std::int64_t ldo) {
  using Scan = cub::BlockScan<std::int64_t, kSetUpThreads>;
  __shared__ typename Scan::TempStorage scan;
  __shared__ std::int64_t carried;  // the running maximum before this chunk
  __shared__ int here;
  __shared__ int token_tiles[detail::GroupTiers::kMax];  // each tier's, as the rule alone gives them
  if (threadIdx.x == 0) {
    carried = 0;
    here = 0;
  }
  if (threadIdx.x < detail::GroupTiers::kMax) token_tiles[threadIdx.x] = 0;
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
  for (int e = threadIdx.x; e < experts; e += kSetUpThreads) {
    const int rows = rows_of(e);
    if (rows == 0) continue;
    const int t = tiers.tier_of(rows);
    atomicAdd(&token_tiles[t], (rows + tiers.tile_rows[t] - 1) / tiers.tile_rows[t]);
  }
  __syncthreads();
  const int first_padded = tiers.few_rows_max > 0 ? 1 : 0;
  const int weight_tiles = (weight_rows + kWeightTileRows - 1) / kWeightTileRows;
  for (int e = threadIdx.x; e < experts; e += kSetUpThreads) {
    const std::int64_t begin = first_rows[e];
    const int rows = rows_of(e);
    int t = rows > 0 ? tiers.tier_of(rows) : -1;
    if (t > first_padded && static_cast<std::int64_t>(token_tiles[t]) * weight_tiles < sm_count) t = first_padded;
    const bool mine = t == tier;
    if (mine) atomicAdd(&here, 1);
    Assembly::set_group(arrays, e, mine ? rows : 0, weight_rows, K, x + begin * ldx, ldx, w + e * weight_stride, ldw);
    if constexpr (!cute::is_void_v<typename Assembly::ElementD>) {
      Assembly::set_output(arrays, e, out + begin * ldo, ldo);
    }
  }
  __syncthreads();
  if (threadIdx.x == 0) *experts_here = here;
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

// The workspace of a grouped launch over E experts: the setup kernel's arrays (each 256-byte
// aligned), then the kernel's own, whose per-SM TMA descriptors need 64-byte alignment: it
// starts at the first 128-byte boundary past the arrays (the caller's workspace is only 16-byte
// aligned).
template <class Assembly>
struct GroupedWorkspace {
  static constexpr std::size_t kKernelAlignment = 128;
  static constexpr bool kHasD = !cute::is_void_v<typename Assembly::ElementD>;

  std::size_t shapes = 0, a = 0, stride_a = 0, b = 0, stride_b = 0, d = 0, stride_d = 0, first_rows = 0,
              experts_here = 0, kernel = 0;
  void* base = nullptr;  // null for a workspace-size query

  static std::size_t aligned(std::size_t bytes) { return (bytes + 255) / 256 * 256; }

  GroupedWorkspace(std::int64_t experts, void* workspace) : base(workspace) {
    const auto e = static_cast<std::size_t>(experts);
    a = shapes + aligned(e * sizeof(typename Assembly::GroupShape));
    stride_a = a + aligned(e * sizeof(void*));
    b = stride_a + aligned(e * sizeof(typename Assembly::StrideA));
    stride_b = b + aligned(e * sizeof(void*));
    d = stride_b + aligned(e * sizeof(typename Assembly::StrideB));
    stride_d = d + (kHasD ? aligned(e * sizeof(void*)) : 0);
    first_rows = stride_d + (kHasD ? aligned(e * sizeof(typename Assembly::StrideD)) : 0);
    experts_here = first_rows + aligned(e * sizeof(std::int32_t));
    kernel = experts_here + aligned(sizeof(std::int32_t));
  }

  template <class T>
  T* at(std::size_t offset) const {
    return base != nullptr ? reinterpret_cast<T*>(static_cast<char*>(base) + offset) : nullptr;
  }
  typename Assembly::GroupArrays arrays() const {
    using A = Assembly;
    return {at<typename A::GroupShape>(shapes),   at<const typename A::GemmElementA*>(a),
            at<typename A::StrideA>(stride_a),    at<const typename A::GemmElementB*>(b),
            at<typename A::StrideB>(stride_b),    kHasD ? at<typename A::ElementD*>(d) : nullptr,
            kHasD ? at<typename A::StrideD>(stride_d) : nullptr};
  }
  std::int32_t* group_first_rows() const { return at<std::int32_t>(first_rows); }
  std::int32_t* launch_experts() const { return at<std::int32_t>(experts_here); }
  void* kernel_workspace() const {
    const auto start = reinterpret_cast<std::uintptr_t>(at<char>(kernel));
    return reinterpret_cast<void*>((start + kKernelAlignment - 1) / kKernelAlignment * kKernelAlignment);
  }
  // The kernel's part depends on the SM count and the experts, not on where the arrays lie.
  std::size_t bytes(std::size_t kernel_bytes) const { return kernel + kKernelAlignment + kernel_bytes; }
};

// Launches the setup kernel, then the grouped kernel (which returns at once when it got no
// expert), on `stream`.
template <class Assembly, class ElementX, class ElementW, class ElementOut>
Status launch_grouped(const GroupedWorkspace<Assembly>& workspace, const typename Assembly::Kernel::Arguments& arguments,
                      const std::int32_t* offsets, std::int64_t experts, std::int64_t tokens, int weight_rows, int K,
                      const ElementX* x, std::int64_t ldx, const ElementW* w, std::int64_t weight_stride,
                      std::int64_t ldw, ElementOut* out, std::int64_t ldo, const detail::LaunchPlan& plan,
                      cudaStream_t stream) {
  auto set_up = [&](cudaStream_t s) {
    set_up_groups<Assembly><<<1, kSetUpThreads, 0, s>>>(
        workspace.arrays(), workspace.group_first_rows(), workspace.launch_experts(), offsets, static_cast<int>(experts),
        tokens, plan.group_tiers, plan.group_tier, plan.sm_count, weight_rows, K, x, ldx, w, weight_stride, ldw, out,
        ldo);
    if (cudaError_t err = cudaGetLastError(); err != cudaSuccess) {
      return detail::sm90::cuda_failure("launching the grouped setup kernel", err);
    }
    return Status::success();
  };
  return detail::sm90::launch<typename Assembly::Kernel, detail::sm90::NoTreeDescriptors>(
      arguments, workspace.kernel_workspace(), plan.device, stream, set_up, UnlessIdleEntry{workspace.launch_experts()});
}

}  // namespace epifuse::kernels::sm90

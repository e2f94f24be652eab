// The sm90 grouped gated-MLP family: every expert's fused gated MLP in one persistent launch
// (CUTLASS's pointer-array mainloop and group scheduler), the epilogue tree of the dense family
// (gated_mlp_kernel.cuh) with the packed bias indexed by expert and the output written to each
// expert's rows (Sm90GatedStore's grouped-rows writer).
//
// Before the kernel, a small setup kernel reads the expert offsets on the device and writes each
// expert's GEMM shape, operand pointers and strides into the workspace: the host never sees the
// group sizes, so the call is capturable in a CUDA graph.
#pragma once

#include <cub/block/block_scan.cuh>
#include <cute/tensor.hpp>
#include <cutlass/epilogue/fusion/sm90_visitor_compute_tma_warpspecialized.hpp>

#include <cstdint>

#include "epifuse/detail/sm90_assembly.cuh"
#include "epifuse/detail/sm90_launch.cuh"
#include "epifuse/grouped_gated_mlp.hpp"
#include "epilogue/sm90_gated_store.cuh"
#include "epilogue/sm90_runtime_epilogue.cuh"

namespace epifuse::kernels::sm90 {

namespace asm90 = detail::sm90;

// One block: expert e's rows are [P(e), P(e+1)) with P(e) the running maximum of offsets[0..e]
// clamped into [0, T], so that whatever the caller's offsets hold, the experts' runs are disjoint
// and inside x and out. Experts whose row count lies outside [rows_min, rows_max] get no rows
// here: another launch computes them.
constexpr int kSetUpThreads = 256;

template <class Assembly, class Element>
__global__ void __launch_bounds__(kSetUpThreads) set_up_groups(
    typename Assembly::GroupArrays arrays, std::int32_t* first_rows, const std::int32_t* offsets, int experts,
    std::int64_t tokens, int rows_min, int rows_max, int weight_rows, int K, const Element* x, std::int64_t ldx,
    const Element* w, std::int64_t weight_stride) {
  using Scan = cub::BlockScan<std::int64_t, kSetUpThreads>;
  __shared__ typename Scan::TempStorage scan;
  __shared__ std::int64_t carried;  // the running maximum before this chunk
  if (threadIdx.x == 0) carried = 0;
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
  for (int e = threadIdx.x; e < experts; e += kSetUpThreads) {
    const std::int64_t begin = first_rows[e];
    const std::int64_t end = e + 1 < experts ? first_rows[e + 1] : last;
    const int rows = static_cast<int>(end - begin);
    Assembly::set_group(arrays, e, rows >= rows_min && rows <= rows_max ? rows : 0, weight_rows, K, x + begin * ldx,
                        ldx, w + e * weight_stride, K);
  }
}

template <class Row>
struct GroupedGatedMlpKernel {
  static constexpr KernelKey kKey = Row::kKey;
  static_assert(kKey.op == Op::kGatedMlp && kKey.grouping == Grouping::kGrouped && kKey.arch == Arch::kSm90,
                "a grouped gated-MLP row of the sm90 table");
  static_assert(kKey.a == kKey.b && kKey.d == kKey.a, "x, the weights and out share one element type");
  static_assert(kKey.decomposition == Decomposition::kDataParallel, "the group scheduler runs whole tiles");

  using Element = asm90::Element<kKey.a>;
  using TileShape = cute::Shape<cute::Int<kKey.tile.m>, cute::Int<kKey.tile.n>, cute::Int<kKey.tile.k>>;
  using ClusterShape = cute::Shape<cute::Int<kKey.cluster.m>, cute::Int<kKey.cluster.n>, cute::_1>;
  using Schedule = typename asm90::ScheduleOf<kKey.schedule>::type;
  static constexpr bool kSwapAB = kKey.swap_ab;
  static constexpr int kPairMode = kSwapAB ? 0 : 1;
  static constexpr bool kCooperative = kKey.schedule == epifuse::Schedule::kCooperative;

  using LayoutOut = asm90::OutputLayout<kSwapAB>;
  using StrideOut = cutlass::detail::TagToStrideC_t<LayoutOut>;  // (M, N, L) of one expert's GEMM
  // Subtiles as the dense family's (gated_mlp_kernel.cuh says why).
  static constexpr int kEpilogueN = !kSwapAB ? 64 : kKey.tile.n % 32 == 0 ? cute::min(32, kKey.tile.n) : 16;
  using EpilogueTile = cute::Shape<cute::Int<kCooperative ? 128 : 64>, cute::Int<kEpilogueN>>;
  static constexpr int kEpilogueTiles = (kKey.tile.m / cute::size<0>(EpilogueTile{})) * (kKey.tile.n / kEpilogueN);
  static constexpr int kStoreStages = cute::min(kEpilogueTiles, 2);

  using Store = device::Sm90GatedStore<kStoreStages, EpilogueTile, Element, StrideOut, kPairMode, /*kGroupedRows=*/true>;
  using PackedBias = device::VectorBroadcast<TileShape, /*kAlongGemmM=*/kSwapAB, std::int64_t>;  // one per expert
  using GateUp = cutlass::epilogue::fusion::Sm90EVT<
      cutlass::epilogue::fusion::Sm90Compute<cutlass::plus, float, float, device::kRound>,
      cutlass::epilogue::fusion::Sm90AccFetch, PackedBias>;
  using Tree = cutlass::epilogue::fusion::Sm90EVT<Store, GateUp>;

  using Epilogue = asm90::GroupedCollectiveEpilogue<TileShape, ClusterShape, EpilogueTile, LayoutOut, Schedule, Tree>;
  static_assert(Epilogue::DispatchPolicy::StagesD == kStoreStages,
                "the gated store's buffers must follow the collective's store pipeline");
  using Assembly = asm90::GroupedAssembly<Element, Element, TileShape, ClusterShape, Schedule, kSwapAB, Epilogue>;
  using Kernel = typename Assembly::Kernel;

  // The workspace: the setup kernel's arrays (each 256-byte aligned), then the kernel's own, whose
  // per-SM TMA descriptors need 64-byte alignment: it starts at the first 128-byte boundary past
  // the arrays (the caller's workspace is only 16-byte aligned).
  static constexpr std::size_t kKernelAlignment = 128;
  struct Layout {
    std::size_t shapes, a, stride_a, b, stride_b, first_rows, kernel;
  };
  static std::size_t aligned(std::size_t bytes) { return (bytes + 255) / 256 * 256; }
  static Layout layout(std::int64_t experts) {
    const auto e = static_cast<std::size_t>(experts);
    Layout l{};
    l.shapes = 0;
    l.a = l.shapes + aligned(e * sizeof(typename Assembly::GroupShape));
    l.stride_a = l.a + aligned(e * sizeof(void*));
    l.b = l.stride_a + aligned(e * sizeof(typename Assembly::StrideA));
    l.stride_b = l.b + aligned(e * sizeof(void*));
    l.first_rows = l.stride_b + aligned(e * sizeof(typename Assembly::StrideB));
    l.kernel = l.first_rows + aligned(e * sizeof(std::int32_t));
    return l;
  }
  // Null without a workspace (a workspace-size query).
  static typename Assembly::GroupArrays arrays(void* workspace, const Layout& l) {
    if (workspace == nullptr) return {};
    auto* base = static_cast<char*>(workspace);
    return {reinterpret_cast<typename Assembly::GroupShape*>(base + l.shapes),
            reinterpret_cast<const typename Assembly::GemmElementA**>(base + l.a),
            reinterpret_cast<typename Assembly::StrideA*>(base + l.stride_a),
            reinterpret_cast<const typename Assembly::GemmElementB**>(base + l.b),
            reinterpret_cast<typename Assembly::StrideB*>(base + l.stride_b)};
  }

  static typename Kernel::Arguments arguments(const GroupedGatedMlpArgs& args, void* workspace,
                                              const detail::LaunchPlan& plan) {
    const GatedMlpArgs& g = args.gated;
    const Layout l = layout(args.experts);
    const auto* first_rows = workspace != nullptr
                                 ? reinterpret_cast<const std::int32_t*>(static_cast<char*>(workspace) + l.first_rows)
                                 : nullptr;
    typename PackedBias::StrideMNL bias_stride{};
    cute::get<2>(bias_stride) = args.bias_stride;
    const typename GateUp::Arguments gate_up = {{}, {g.w.bias, 0.0f, bias_stride}, {}};
    const typename Tree::Arguments tree = {
        gate_up,
        {static_cast<Element*>(g.out), asm90::output_stride<kSwapAB, StrideOut>(g.ldo), device::gated_math(g), 0,
         first_rows}};
    return Assembly::arguments(static_cast<int>(args.experts), arrays(workspace, l), tree, plan);
  }

  static Status run(const GroupedGatedMlpArgs& args, const detail::LaunchPlan& plan, cudaStream_t stream) {
    const GatedMlpArgs& g = args.gated;
    const Layout l = layout(args.experts);
    void* workspace = g.workspace;
    auto set_up = [&](cudaStream_t s) {
      set_up_groups<Assembly, Element><<<1, kSetUpThreads, 0, s>>>(
          arrays(workspace, l), reinterpret_cast<std::int32_t*>(static_cast<char*>(workspace) + l.first_rows),
          args.expert_offsets, static_cast<int>(args.experts), g.M, plan.group_rows_min, plan.group_rows_max,
          static_cast<int>(2 * g.w.N),
          static_cast<int>(g.w.K), static_cast<const Element*>(g.x), g.ldx, static_cast<const Element*>(g.w.weight),
          args.weight_stride);
      if (cudaError_t err = cudaGetLastError(); err != cudaSuccess) {
        return asm90::cuda_failure("launching the grouped setup kernel", err);
      }
      return Status::success();
    };
    const auto start = reinterpret_cast<std::uintptr_t>(static_cast<char*>(workspace) + l.kernel);
    void* kernel_workspace = reinterpret_cast<void*>((start + kKernelAlignment - 1) / kKernelAlignment * kKernelAlignment);
    return asm90::launch<Kernel>(arguments(args, workspace, plan), kernel_workspace, plan.device, stream, set_up);
  }

  static std::size_t workspace_bytes(const GroupedGatedMlpArgs& args, const detail::LaunchPlan& plan) {
    const Layout l = layout(args.experts);
    // The kernel's part depends on the SM count and the experts, not on where the arrays lie.
    return l.kernel + kKernelAlignment + Kernel::get_workspace_size(arguments(args, nullptr, plan));
  }
};

}  // namespace epifuse::kernels::sm90

// The sm90 grouped gated-MLP family: every expert's fused gated MLP in one persistent launch
// (CUTLASS's pointer-array mainloop and group scheduler), the epilogue tree of the dense family
// (gated_mlp_kernel.cuh) with the packed bias indexed by expert and the output written to each
// expert's rows (Sm90GatedStore's grouped-rows writer).
//
// Before the kernel, the setup kernel of grouped_setup.cuh reads the expert offsets on the device.
#pragma once

#include "epifuse/detail/cutlass_driver_calls.hpp"  // first: it sets how CUTLASS calls the driver

#include <cute/tensor.hpp>
#include <cutlass/epilogue/fusion/sm90_visitor_compute_tma_warpspecialized.hpp>

#include <cstdint>

#include "epifuse/detail/sm90_assembly.cuh"
#include "epifuse/detail/sm90_launch.cuh"
#include "epifuse/grouped_gated_mlp.hpp"
#include "epilogue/sm90_gated_store.cuh"
#include "epilogue/sm90_runtime_epilogue.cuh"
#include "kernels/sm90/grouped_setup.cuh"

namespace epifuse::kernels::sm90 {

namespace asm90 = detail::sm90;

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

  using Epilogue = asm90::GroupedCollectiveEpilogue<TileShape, ClusterShape, EpilogueTile, void, LayoutOut, Schedule, Tree>;
  static_assert(Epilogue::DispatchPolicy::StagesD == kStoreStages,
                "the gated store's buffers must follow the collective's store pipeline");
  using Assembly = asm90::GroupedAssembly<Element, Element, TileShape, ClusterShape, Schedule, kSwapAB, Epilogue>;
  using Kernel = typename Assembly::Kernel;

  using Workspace = GroupedWorkspace<Element, void>;

  static typename Kernel::Arguments arguments(const GroupedGatedMlpArgs& args, const Workspace& workspace,
                                              const detail::LaunchPlan& plan) {
    const GatedMlpArgs& g = args.gated;
    typename PackedBias::StrideMNL bias_stride{};
    cute::get<2>(bias_stride) = args.bias_stride;
    const typename GateUp::Arguments gate_up = {{}, {g.w.bias, 0.0f, bias_stride}, {}};
    const typename Tree::Arguments tree = {
        gate_up,
        {static_cast<Element*>(g.out), asm90::output_stride<kSwapAB, StrideOut>(g.ldo), device::gated_math(g), 0,
         workspace.group_first_rows()}};
    return Assembly::arguments(static_cast<int>(args.experts), workspace.template arrays<kSwapAB>(plan.group_tier), tree,
                               plan);
  }

  static Status run(const GroupedGatedMlpArgs& args, const detail::LaunchPlan& plan, cudaStream_t stream) {
    const GatedMlpArgs& g = args.gated;
    const Workspace workspace(args.experts, plan.group_tiers.count, g.workspace);
    return launch_grouped<Assembly>(workspace, arguments(args, workspace, plan), args.expert_offsets, args.experts,
                                    g.M, static_cast<int>(2 * g.w.N), static_cast<int>(g.w.K),
                                    static_cast<const Element*>(g.x), g.ldx, static_cast<const Element*>(g.w.weight),
                                    args.weight_stride, g.w.K, static_cast<void*>(nullptr), 0, plan, stream);
  }

  static std::size_t workspace_bytes(const GroupedGatedMlpArgs& args, const detail::LaunchPlan& plan) {
    const Workspace workspace(args.experts, plan.group_tiers.count, nullptr);
    return workspace.bytes(Kernel::get_workspace_size(arguments(args, workspace, plan)));
  }
};

}  // namespace epifuse::kernels::sm90

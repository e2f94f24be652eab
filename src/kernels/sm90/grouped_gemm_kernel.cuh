// The sm90 grouped GEMM family: every expert's D = cast(A·Bᵀ) in one persistent launch (CUTLASS's
// pointer-array mainloop, group scheduler and pointer-array TMA epilogue). Each expert's D is its
// rows of the output, with a TMA descriptor of the expert's own extent, so a tile that reaches
// past the expert's last row is clipped there and never writes the next expert's rows.
//
// Before the kernel, the setup kernel of grouped_setup.cuh reads the expert offsets on the device.
#pragma once

#include "epifuse/detail/cutlass_driver_calls.hpp"  // first: it sets how CUTLASS calls the driver

#include <cute/tensor.hpp>

#include <cstdint>

#include "epifuse/detail/sm90_assembly.cuh"
#include "epifuse/detail/sm90_launch.cuh"
#include "epifuse/grouped_gemm.hpp"
#include "epilogue/sm90_runtime_epilogue.cuh"
#include "kernels/sm90/grouped_setup.cuh"

namespace epifuse::kernels::sm90 {

namespace asm90 = detail::sm90;

template <class Row>
struct GroupedGemmKernel {
  static constexpr KernelKey kKey = Row::kKey;
  static_assert(kKey.op == Op::kGemm && kKey.grouping == Grouping::kGrouped && kKey.arch == Arch::kSm90,
                "a grouped GEMM row of the sm90 table");
  static_assert(kKey.a == kKey.b, "wgmma's bf16/fp16 path takes one element type for A and B");
  static_assert(kKey.epilogue == EpilogueCoverage::kCastOnly && !kKey.has_c, "the cast alone, without C");
  static_assert(kKey.decomposition == Decomposition::kDataParallel, "the group scheduler runs whole tiles");

  using ElementAB = asm90::Element<kKey.a>;
  using ElementD = asm90::Element<kKey.d>;
  using TileShape = cute::Shape<cute::Int<kKey.tile.m>, cute::Int<kKey.tile.n>, cute::Int<kKey.tile.k>>;
  using ClusterShape = cute::Shape<cute::Int<kKey.cluster.m>, cute::Int<kKey.cluster.n>, cute::_1>;
  using Schedule = typename asm90::ScheduleOf<kKey.schedule>::type;

  using RuntimeEpilogue = device::Sm90RuntimeEpilogue<TileShape, ElementD, kKey.swap_ab, kKey.epilogue>;
  using Epilogue = asm90::GroupedCollectiveEpilogue<TileShape, ClusterShape,
                                                    cutlass::epilogue::collective::EpilogueTileAuto, ElementD,
                                                    asm90::OutputLayout<kKey.swap_ab>, Schedule,
                                                    typename RuntimeEpilogue::Tree>;
  using Assembly = asm90::GroupedAssembly<ElementAB, ElementAB, TileShape, ClusterShape, Schedule, kKey.swap_ab, Epilogue>;
  using Kernel = typename Assembly::Kernel;
  using Workspace = GroupedWorkspace<ElementAB, ElementD>;

  static typename Kernel::Arguments arguments(const GroupedGemmArgs& args, const Workspace& workspace,
                                              const detail::LaunchPlan& plan) {
    return Assembly::arguments(static_cast<int>(args.experts), workspace.template arrays<kKey.swap_ab>(plan.group_tier),
                               RuntimeEpilogue::arguments(args.gemm.epilogue), plan);
  }

  static Status run(const GroupedGemmArgs& args, const detail::LaunchPlan& plan, cudaStream_t stream) {
    const GemmArgs& g = args.gemm;
    const Workspace workspace(args.experts, plan.group_tiers.count, g.workspace);
    return launch_grouped<Assembly>(workspace, arguments(args, workspace, plan), args.expert_offsets, args.experts,
                                    g.M, static_cast<int>(g.N), static_cast<int>(g.K),
                                    static_cast<const ElementAB*>(g.A), g.lda, static_cast<const ElementAB*>(g.B),
                                    args.weight_stride, g.ldb, static_cast<ElementD*>(g.D), g.ldd, plan, stream);
  }

  static std::size_t workspace_bytes(const GroupedGemmArgs& args, const detail::LaunchPlan& plan) {
    const Workspace workspace(args.experts, plan.group_tiers.count, nullptr);
    return workspace.bytes(Kernel::get_workspace_size(arguments(args, workspace, plan)));
  }
};

}  // namespace epifuse::kernels::sm90

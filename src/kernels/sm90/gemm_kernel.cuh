// The sm90 GEMM family: the shared assembly (include/epifuse/detail/sm90_assembly.cuh) with
// epifuse's run-time epilogue (src/epilogue/sm90_runtime_epilogue.cuh), one kernel per table row.
//
//   D[M,N] = epilogue(A[M,K] · B[N,K]ᵀ)       Row::kKey: op kGemm, its types, tile, schedule, ...
#pragma once

#include "epifuse/detail/cutlass_driver_calls.hpp"  // first: it sets how CUTLASS calls the driver

#include <cute/tensor.hpp>

#include "epifuse/detail/sm90_assembly.cuh"
#include "epifuse/detail/sm90_launch.cuh"
#include "epifuse/gemm.hpp"
#include "epilogue/sm90_runtime_epilogue.cuh"

namespace epifuse::kernels::sm90 {

namespace asm90 = detail::sm90;

template <class Row>
struct GemmKernel {
  static constexpr KernelKey kKey = Row::kKey;
  static_assert(kKey.op == Op::kGemm && kKey.arch == Arch::kSm90, "a GEMM row of the sm90 table");
  static_assert(kKey.a == kKey.b, "wgmma's bf16/fp16 path takes one element type for A and B");
  static_assert(kKey.epilogue != EpilogueCoverage::kGatedPair, "the gated epilogue is the gated MLP's");

  using ElementAB = asm90::Element<kKey.a>;
  using ElementD = asm90::Element<kKey.d>;
  using ElementC = cute::conditional_t<kKey.has_c, ElementD, void>;
  using TileShape = cute::Shape<cute::Int<kKey.tile.m>, cute::Int<kKey.tile.n>, cute::Int<kKey.tile.k>>;
  using ClusterShape = cute::Shape<cute::Int<kKey.cluster.m>, cute::Int<kKey.cluster.n>, cute::_1>;
  using Schedule = typename asm90::ScheduleOf<kKey.schedule>::type;

  using RuntimeEpilogue = device::Sm90RuntimeEpilogue<TileShape, ElementD, kKey.swap_ab, kKey.epilogue>;
  using Epilogue = asm90::CollectiveEpilogue<TileShape, ClusterShape, cutlass::epilogue::collective::EpilogueTileAuto,
                                             ElementC, ElementD, asm90::OutputLayout<kKey.swap_ab>, Schedule,
                                             typename RuntimeEpilogue::Tree>;
  using Assembly = asm90::Assembly<ElementAB, ElementAB, TileShape, ClusterShape, Schedule, kKey.swap_ab, Epilogue,
                                   kKey.decomposition>;
  using Kernel = typename Assembly::Kernel;

  static typename Kernel::Arguments arguments(const GemmArgs& args, const detail::LaunchPlan& plan) {
    const void* residual = kKey.has_c ? args.epilogue.residual : nullptr;
    return Assembly::arguments(
        args.M, args.N, args.K, Assembly::mainloop_arguments(args.A, args.lda, args.B, args.ldb),
        Assembly::output_arguments(RuntimeEpilogue::arguments(args.epilogue), residual, args.epilogue.ldc, args.D, args.ldd),
        plan);
  }

  static Status run(const GemmArgs& args, const detail::LaunchPlan& plan, cudaStream_t stream) {
    return asm90::launch<Kernel>(arguments(args, plan), args.workspace, plan.device, stream);
  }

  static std::size_t workspace_bytes(const GemmArgs& args, const detail::LaunchPlan& plan) {
    return Kernel::get_workspace_size(arguments(args, plan));
  }
};

}  // namespace epifuse::kernels::sm90

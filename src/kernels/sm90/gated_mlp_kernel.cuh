// The sm90 fused gated-MLP family: the shared assembly over the packed [2N, K] weight, and the
// epilogue tree  Sm90GatedStore(acc + packed_bias)  whose collective C and D are void, so only the
// [M, N] output is written (src/epilogue/sm90_gated_store.cuh).
//
// Unswapped, the GEMM is x[M,K] · Wpᵀ -> (M, 2N) and gate/up pairs run along its N. With swap_ab
// it is Wp[2N,K] · xᵀ -> (2N, M): the weight fills wgmma's fixed 64-row side and few tokens its
// flexible N side; pairs then run along its M and the output, (N, M) in GEMM coordinates, is
// column-major, i.e. out[M, N] row-major.
//
// When the launch plan pads the tokens (M not a multiple of the token tile), the mainloop reads a
// zero-padded copy of x from the workspace instead of x, so that no TMA box runs past x's last
// row (such boxes load several times slower); the store still writes M rows.
#pragma once

#include "epifuse/detail/cutlass_driver_calls.hpp"  // first: it sets how CUTLASS calls the driver

#include <cute/tensor.hpp>
#include <cutlass/epilogue/fusion/sm90_visitor_compute_tma_warpspecialized.hpp>

#include "epifuse/detail/sm90_assembly.cuh"
#include "epifuse/detail/sm90_launch.cuh"
#include "epifuse/gated_mlp.hpp"
#include "epilogue/sm90_gated_store.cuh"
#include "epilogue/sm90_runtime_epilogue.cuh"
#include "kernels/pad_rows.hpp"

namespace epifuse::kernels::sm90 {

namespace asm90 = detail::sm90;

template <class Row>
struct GatedMlpKernel {
  static constexpr KernelKey kKey = Row::kKey;
  static_assert(kKey.op == Op::kGatedMlp && kKey.arch == Arch::kSm90, "a gated-MLP row of the sm90 table");
  static_assert(kKey.a == kKey.b && kKey.d == kKey.a, "x, the weight and out share one element type");
  static_assert(kKey.epilogue == EpilogueCoverage::kGatedPair && !kKey.has_c, "the gated epilogue, without C");

  using Element = asm90::Element<kKey.a>;
  using TileShape = cute::Shape<cute::Int<kKey.tile.m>, cute::Int<kKey.tile.n>, cute::Int<kKey.tile.k>>;
  using ClusterShape = cute::Shape<cute::Int<kKey.cluster.m>, cute::Int<kKey.cluster.n>, cute::_1>;
  using Schedule = typename asm90::ScheduleOf<kKey.schedule>::type;
  static constexpr bool kSwapAB = kKey.swap_ab;
  static constexpr int kPairMode = kSwapAB ? 0 : 1;
  static constexpr bool kCooperative = kKey.schedule == epifuse::Schedule::kCooperative;

  using LayoutOut = asm90::OutputLayout<kSwapAB>;
  using StrideOut = cutlass::detail::TagToStrideC_t<LayoutOut>;  // (M, N, L) in GEMM coordinates
  // Subtile rows as CUTLASS requires for the schedule: 128 split over the cooperative pair, 64
  // per pingpong warpgroup. 64 columns unswapped (output subtile rows of 64 bytes, twice what
  // CUTLASS's default 32 columns give: half as many, larger TMA stores); swapped, where the
  // output runs along M (64 elements, 128 bytes), 32 tokens, or 16 where 32 does not divide the
  // token tile (144, 176, 208 tokens; CUTLASS's collective takes multiples of 16 only).
  static constexpr int kEpilogueN = !kSwapAB ? 64 : kKey.tile.n % 32 == 0 ? cute::min(32, kKey.tile.n) : 16;
  static_assert(kKey.tile.n % kEpilogueN == 0, "whole epilogue subtiles along the tile's N");
  using EpilogueTile = cute::Shape<cute::Int<kCooperative ? 128 : 64>, cute::Int<kEpilogueN>>;
  static constexpr int kEpilogueTiles = (kKey.tile.m / cute::size<0>(EpilogueTile{})) * (kKey.tile.n / kEpilogueN);
  static constexpr int kStoreStages = cute::min(kEpilogueTiles, 2);  // as CUTLASS's builder sizes StagesD

  using Store = device::Sm90GatedStore<kStoreStages, EpilogueTile, Element, StrideOut, kPairMode>;
  using PackedBias = device::VectorBroadcast<TileShape, /*kAlongGemmM=*/kSwapAB>;
  using GateUp = cutlass::epilogue::fusion::Sm90EVT<
      cutlass::epilogue::fusion::Sm90Compute<cutlass::plus, float, float, device::kRound>,
      cutlass::epilogue::fusion::Sm90AccFetch, PackedBias>;
  using Tree = cutlass::epilogue::fusion::Sm90EVT<Store, GateUp>;

  using Epilogue = asm90::CollectiveEpilogue<TileShape, ClusterShape, EpilogueTile, void, void, LayoutOut, Schedule, Tree>;
  static_assert(Epilogue::DispatchPolicy::StagesD == kStoreStages,
                "the gated store's buffers must follow the collective's store pipeline");
  using Assembly = asm90::Assembly<Element, Element, TileShape, ClusterShape, Schedule, kSwapAB, Epilogue, kKey.decomposition>;
  using Kernel = typename Assembly::Kernel;

  // The store node encodes the [M, N] output's descriptor itself.
  struct StoreDescriptor {
    template <class TreeParams>
    static bool encoded(const TreeParams& tree) {
      return asm90::encoded(tree.op_1.tma_store.get_tma_descriptor());
    }
  };

  // Bytes at the workspace's start that hold x padded to plan.padded_tokens rows (0: x is read
  // in place); the kernel's own workspace follows, 256-byte aligned.
  static std::size_t padded_x_bytes(const GatedMlpArgs& args, const detail::LaunchPlan& plan) {
    const std::size_t bytes = static_cast<std::size_t>(plan.padded_tokens) * static_cast<std::size_t>(args.w.K) * sizeof(Element);
    return (bytes + 255) / 256 * 256;
  }

  static typename Kernel::Arguments arguments(const GatedMlpArgs& args, const detail::LaunchPlan& plan) {
    const bool padded = plan.padded_tokens > 0;
    const typename GateUp::Arguments gate_up = {{}, {args.w.bias, 0.0f, {}}, {}};
    const typename Tree::Arguments tree = {gate_up,
                                           {static_cast<Element*>(args.out),
                                            Assembly::template output_stride<StrideOut>(args.ldo), device::gated_math(args),
                                            static_cast<int>(args.M)}};
    // The GEMM's N side (or M side swapped) spans the 2N packed rows.
    return Assembly::arguments(padded ? plan.padded_tokens : args.M, 2 * args.w.N, args.w.K,
                               Assembly::mainloop_arguments(padded ? args.workspace : args.x,
                                                            padded ? args.w.K : args.ldx, args.w.weight, args.w.ld),
                               {tree, nullptr, {}, nullptr, {}}, plan);
  }

  static Status run(const GatedMlpArgs& args, const detail::LaunchPlan& plan, cudaStream_t stream) {
    const std::size_t x_bytes = padded_x_bytes(args, plan);
    auto pad_x = [&](cudaStream_t s) {
      if (plan.padded_tokens == 0) return Status::success();
      const std::int64_t element = sizeof(Element);
      return detail::pad_rows(args.x, args.ldx * element, args.M, args.w.K * element, plan.padded_tokens,
                              args.workspace, s);
    };
    void* kernel_workspace = x_bytes > 0 ? static_cast<char*>(args.workspace) + x_bytes : args.workspace;
    return asm90::launch<Kernel, StoreDescriptor>(arguments(args, plan), kernel_workspace, plan.device, stream, pad_x);
  }

  static std::size_t workspace_bytes(const GatedMlpArgs& args, const detail::LaunchPlan& plan) {
    return padded_x_bytes(args, plan) + Kernel::get_workspace_size(arguments(args, plan));
  }
};

}  // namespace epifuse::kernels::sm90

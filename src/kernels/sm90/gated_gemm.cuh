// One sm90 fused gated-MLP kernel: CUTLASS's warp-specialized TMA/wgmma mainloop over the packed
// [2N, K] weight, and an epilogue tree  Sm90GatedStore(acc + packed_bias)  whose collective D is
// void, so only the [M, N] output is written (src/epilogue/sm90_gated_store.cuh).
//
// Unswapped, the GEMM is x[M,K] · Wpᵀ -> (M, 2N) and gate/up pairs run along its N. With kSwapAB it
// is Wp[2N,K] · xᵀ -> (2N, M): the weight fills wgmma's fixed 64-row side and few tokens its
// flexible N side; pairs then run along its M and the output, (N, M) in GEMM coordinates, is
// column-major, i.e. out[M, N] row-major.
#pragma once

#include <cute/tensor.hpp>
#include <cutlass/epilogue/collective/collective_builder.hpp>
#include <cutlass/epilogue/fusion/sm90_visitor_compute_tma_warpspecialized.hpp>
#include <cutlass/gemm/collective/collective_builder.hpp>
#include <cutlass/gemm/device/gemm_universal_adapter.h>
#include <cutlass/gemm/kernel/gemm_universal.hpp>

#include <cstdint>
#include <string>

#include "dispatch/sm90_gated_registry.hpp"
#include "epifuse/sm90/gemm_kernel.cuh"
#include "epilogue/sm90_gated_store.cuh"
#include "epilogue/sm90_runtime_epilogue.cuh"

namespace epifuse::sm90 {

template <class ElementAB_, class TileShape_, class ClusterShape_, class Schedule_, bool kSwapAB_>
class GatedGemmKernel {
  using ElementAB = ElementAB_;
  using TileShape = TileShape_;
  using Schedule = Schedule_;
  static constexpr bool kSwapAB = kSwapAB_;
  static constexpr int kPairMode = kSwapAB ? 0 : 1;
  static constexpr bool kCooperative = cute::is_same_v<Schedule, Cooperative>;

  using LayoutOut = cute::conditional_t<kSwapAB, cutlass::layout::ColumnMajor, cutlass::layout::RowMajor>;
  using StrideOut = cutlass::detail::TagToStrideC_t<LayoutOut>;  // (M, N, L) in GEMM coordinates
  // Subtile rows as CUTLASS requires for the schedule: 128 split over the cooperative pair, 64
  // per pingpong warpgroup. 64 columns unswapped (output subtile rows of 64 bytes, twice what
  // CUTLASS's default 32 columns give: half as many, larger TMA stores); 32 swapped, where the
  // output runs along M (64 elements, 128 bytes).
  static constexpr int kEpilogueN = kSwapAB ? cute::min(32, cute::size<1>(TileShape{})) : 64;
  using EpilogueTile = cute::Shape<cute::Int<kCooperative ? 128 : 64>, cute::Int<kEpilogueN>>;
  static constexpr int kEpilogueTiles = (cute::size<0>(TileShape{}) / cute::size<0>(EpilogueTile{})) *
                                        (cute::size<1>(TileShape{}) / cute::size<1>(EpilogueTile{}));
  static constexpr int kStoreStages = cute::min(kEpilogueTiles, 2);  // as CUTLASS's builder sizes StagesD

  using Store = device::Sm90GatedStore<kStoreStages, EpilogueTile, ElementAB, StrideOut, kPairMode>;
  using PackedBias = device::VectorBroadcast<TileShape, /*kAlongGemmM=*/kSwapAB>;
  using GateUp = cutlass::epilogue::fusion::Sm90EVT<
      cutlass::epilogue::fusion::Sm90Compute<cutlass::plus, float, float, device::kRound>,
      cutlass::epilogue::fusion::Sm90AccFetch, PackedBias>;
  using Tree = cutlass::epilogue::fusion::Sm90EVT<Store, GateUp>;

  using CollectiveEpilogue = typename cutlass::epilogue::collective::CollectiveBuilder<
      cutlass::arch::Sm90, cutlass::arch::OpClassTensorOp, TileShape, ClusterShape_, EpilogueTile, float, float,
      void, LayoutOut, 8, void, LayoutOut, 8, typename Schedule::EpilogueSchedule, Tree>::CollectiveOp;
  static_assert(CollectiveEpilogue::DispatchPolicy::StagesD == kStoreStages,
                "the gated store's buffers must follow the collective's store pipeline");

  using CollectiveMainloop = typename cutlass::gemm::collective::CollectiveBuilder<
      cutlass::arch::Sm90, cutlass::arch::OpClassTensorOp, ElementAB, cutlass::layout::RowMajor, 8, ElementAB,
      cutlass::layout::ColumnMajor, 8, float, TileShape, ClusterShape_,
      cutlass::gemm::collective::StageCountAutoCarveout<static_cast<int>(
          sizeof(typename CollectiveEpilogue::SharedStorage))>,
      typename Schedule::MainloopSchedule>::CollectiveOp;

  using Kernel = cutlass::gemm::kernel::GemmUniversal<cute::Shape<int, int, int, int>, CollectiveMainloop,
                                                      CollectiveEpilogue>;
  using Gemm = cutlass::gemm::device::GemmUniversalAdapter<Kernel>;

  static typename Gemm::Arguments arguments(const GatedArgs& args, const device::GatedMath& math,
                                            const LaunchConfig& config) {
    using cute::_1;
    const int packed_rows = static_cast<int>(2 * args.w.N);
    const int gemm_m = kSwapAB ? packed_rows : static_cast<int>(args.M);
    const int gemm_n = kSwapAB ? static_cast<int>(args.M) : packed_rows;
    const auto* x = static_cast<const ElementAB*>(args.x);
    const auto* w = static_cast<const ElementAB*>(args.w.weight);
    typename Kernel::StrideA stride_a{kSwapAB ? args.w.ld : args.ldx, _1{}, std::int64_t{0}};  // (Mg, K, L)
    typename Kernel::StrideB stride_b{kSwapAB ? args.ldx : args.w.ld, _1{}, std::int64_t{0}};  // (Ng, K, L)
    StrideOut stride_out;
    if constexpr (kSwapAB) {
      stride_out = StrideOut{_1{}, args.ldo, std::int64_t{0}};
    } else {
      stride_out = StrideOut{args.ldo, _1{}, std::int64_t{0}};
    }

    const typename GateUp::Arguments gate_up = {{}, {args.w.bias, 0.0f, {}}, {}};
    const typename Tree::Arguments tree = {gate_up, {static_cast<ElementAB*>(args.out), stride_out, math}};

    return typename Gemm::Arguments{
        cutlass::gemm::GemmUniversalMode::kGemm,
        {gemm_m, gemm_n, static_cast<int>(args.w.K), 1},
        {kSwapAB ? w : x, stride_a, kSwapAB ? x : w, stride_b},
        {tree, nullptr, {}, nullptr, {}},
        hardware_info(config),
        scheduler_arguments<Kernel>(config),
    };
  }

 public:
  static device::GatedMath gated_math(const GatedArgs& args) {
    device::GatedMath math;
    math.activation = device::compile_activation(gate_activation(args.activation), 0.0f, 0.0f, 0.0f);
    math.limit = args.limit;
    math.scale = args.scale;
    return math;
  }

  // Launches on `stream`; the caller has validated `args`.
  static Status run(const GatedArgs& args, const LaunchConfig& config, cudaStream_t stream) {
    const typename Gemm::Arguments gemm_args = arguments(args, gated_math(args), config);
    if (Gemm::get_workspace_size(gemm_args) != 0) return Status::internal("gated kernel unexpectedly needs workspace");
    return launch_cutlass<Gemm>(gemm_args, nullptr, stream);
  }

  static detail::Sm90GatedKernelEntry entry(const char* name) {
    return {{name, DTypeOf<ElementAB>::kValue, kSwapAB, cute::size<0>(TileShape{}), cute::size<1>(TileShape{}),
             cute::size<2>(TileShape{})},
            &run};
  }
};

}  // namespace epifuse::sm90

// Defines `const detail::Sm90GatedKernelEntry& epifuse::sm90::gated_kernel_<name>()`.
#define EPIFUSE_SM90_GATED_GEMM(name, ...)                                                   \
  namespace epifuse::sm90 {                                                                  \
  const detail::Sm90GatedKernelEntry& gated_kernel_##name() {                                \
    static const detail::Sm90GatedKernelEntry entry = GatedGemmKernel<__VA_ARGS__>::entry("sm90_gated_" #name); \
    return entry;                                                                            \
  }                                                                                          \
  }

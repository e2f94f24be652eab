// The sm90 kernel assembly every epifuse kernel shares: CUTLASS types from kernel-key values, the
// warp-specialized TMA/wgmma mainloop sized around an epilogue, the GemmUniversal kernel, and the
// problem as that kernel runs it (swap-aware shape, operands, strides, scheduler knobs). Kernel
// families (src/kernels/sm90/) and sm90::gemm_custom add only their epilogue.
//
// The caller's view: A [M, K] (activations) and B [N, K] (the weight), K contiguous; outputs
// row-major [M, ld]. kSwapAB runs Dᵀ = B·Aᵀ instead, so the weight fills wgmma's fixed 64-row side
// and few tokens its flexible N side: the GEMM's M is then N, and outputs, (N, M) in GEMM
// coordinates, are column-major there.
#pragma once

#include "epifuse/detail/cutlass_driver_calls.hpp"  // first: it sets how CUTLASS calls the driver

#include <cute/tensor.hpp>
#include <cutlass/epilogue/collective/collective_builder.hpp>
#include <cutlass/gemm/collective/collective_builder.hpp>
#include <cutlass/gemm/dispatch_policy.hpp>
#include <cutlass/gemm/group_array_problem_shape.hpp>
#include <cutlass/gemm/kernel/gemm_universal.hpp>
#include <cutlass/numeric_types.h>

#include <cstdint>

#include "epifuse/detail/launch_plan.hpp"
#include "epifuse/kernel_key.hpp"

namespace epifuse::detail::sm90 {

template <DType kDType> struct ElementOf;
template <> struct ElementOf<DType::kBF16> { using type = cutlass::bfloat16_t; };
template <> struct ElementOf<DType::kFP16> { using type = cutlass::half_t; };
template <> struct ElementOf<DType::kFP32> { using type = float; };
template <> struct ElementOf<DType::kFP8E4M3> { using type = cutlass::float_e4m3_t; };
template <> struct ElementOf<DType::kFP8E5M2> { using type = cutlass::float_e5m2_t; };
template <DType kDType> using Element = typename ElementOf<kDType>::type;

template <class T> struct DTypeOf;
template <> struct DTypeOf<cutlass::bfloat16_t> { static constexpr DType kValue = DType::kBF16; };
template <> struct DTypeOf<cutlass::half_t> { static constexpr DType kValue = DType::kFP16; };
template <> struct DTypeOf<float> { static constexpr DType kValue = DType::kFP32; };

struct Cooperative {
  using MainloopSchedule = cutlass::gemm::KernelTmaWarpSpecializedCooperative;
  using EpilogueSchedule = cutlass::epilogue::TmaWarpSpecializedCooperative;
  using GroupedMainloopSchedule = cutlass::gemm::KernelPtrArrayTmaWarpSpecializedCooperative;
  using GroupedEpilogueSchedule = cutlass::epilogue::PtrArrayTmaWarpSpecializedCooperative;
};
struct Pingpong {
  using MainloopSchedule = cutlass::gemm::KernelTmaWarpSpecializedPingpong;
  using EpilogueSchedule = cutlass::epilogue::TmaWarpSpecialized;
  using GroupedMainloopSchedule = cutlass::gemm::KernelPtrArrayTmaWarpSpecializedPingpong;
  using GroupedEpilogueSchedule = cutlass::epilogue::PtrArrayTmaWarpSpecializedPingpong;
};

template <Schedule kSchedule> struct ScheduleOf;
template <> struct ScheduleOf<Schedule::kCooperative> { using type = Cooperative; };
template <> struct ScheduleOf<Schedule::kPingpong> { using type = Pingpong; };

// 16 bytes of T, in elements: TMA's alignment. Void operands (absent C or D) take any value.
template <class T>
constexpr int kAlignment = 16 / static_cast<int>(sizeof(cute::conditional_t<cute::is_void_v<T>, std::uint16_t, T>));

// CUTLASS's sm90 TMA epilogue around an epilogue tree, in GEMM coordinates.
template <class TileShape, class ClusterShape, class EpilogueTile, class ElementC, class ElementD, class LayoutD,
          class Schedule, class Tree>
using CollectiveEpilogue = typename cutlass::epilogue::collective::CollectiveBuilder<
    cutlass::arch::Sm90, cutlass::arch::OpClassTensorOp, TileShape, ClusterShape, EpilogueTile, float, float,
    ElementC, LayoutD, kAlignment<ElementC>, ElementD, LayoutD, kAlignment<ElementD>,
    typename Schedule::EpilogueSchedule, Tree>::CollectiveOp;

// The same around a grouped kernel's epilogue tree: per-group D (pointer layouts; void when the
// tree stores its own output), no C.
template <class TileShape, class ClusterShape, class EpilogueTile, class ElementD, class LayoutD, class Schedule,
          class Tree>
using GroupedCollectiveEpilogue = typename cutlass::epilogue::collective::CollectiveBuilder<
    cutlass::arch::Sm90, cutlass::arch::OpClassTensorOp, TileShape, ClusterShape, EpilogueTile, float, float, void,
    LayoutD*, kAlignment<ElementD>, ElementD, LayoutD*, kAlignment<ElementD>,
    typename Schedule::GroupedEpilogueSchedule, Tree>::CollectiveOp;

// The output layout in GEMM coordinates: row-major [M, ld] memory seen through the (swapped) GEMM.
template <bool kSwapAB>
using OutputLayout = cute::conditional_t<kSwapAB, cutlass::layout::ColumnMajor, cutlass::layout::RowMajor>;

// The persistent tile scheduler of a decomposition: CUTLASS's default (whole tiles) or its stream-K one.
template <Decomposition kDecomposition>
using TileSchedulerOf = cute::conditional_t<kDecomposition == Decomposition::kStreamK, cutlass::gemm::StreamKScheduler, void>;

// The GPU's size and the persistent scheduler's knobs of a plan, as every kernel takes them.
inline cutlass::KernelHardwareInfo hardware_info(const LaunchPlan& plan) {
  cutlass::KernelHardwareInfo hw_info;
  hw_info.device_id = plan.device;
  hw_info.sm_count = plan.sm_count;
  return hw_info;
}
template <class SchedulerArguments>
SchedulerArguments scheduler_arguments(const LaunchPlan& plan) {
  SchedulerArguments scheduler;
  scheduler.max_swizzle_size = plan.swizzle;
  using Raster = cutlass::gemm::kernel::detail::RasterOrderOptions;
  scheduler.raster_order = plan.raster == RasterOrder::kAlongM   ? Raster::AlongM
                           : plan.raster == RasterOrder::kAlongN ? Raster::AlongN
                                                                 : Raster::Heuristic;
  return scheduler;
}

// A row-major [M, ld] output as (Mg, Ng, L) strides: (ld, 1), or (1, ld) swapped.
template <bool kSwapAB, class StrideMNL>
StrideMNL output_stride(std::int64_t ld) {
  using cute::_1;
  if constexpr (kSwapAB) {
    return StrideMNL{_1{}, ld, std::int64_t{0}};
  } else {
    return StrideMNL{ld, _1{}, std::int64_t{0}};
  }
}

template <class ElementA, class ElementB, class TileShape_, class ClusterShape_, class Schedule, bool kSwapAB,
          class Epilogue, Decomposition kDecomposition = Decomposition::kDataParallel>
struct Assembly {
  using TileShape = TileShape_;        // (BLK_M, BLK_N, BLK_K) of the GEMM actually run
  using ClusterShape = ClusterShape_;  // (CLUSTER_M, CLUSTER_N, 1)
  using GemmElementA = cute::conditional_t<kSwapAB, ElementB, ElementA>;
  using GemmElementB = cute::conditional_t<kSwapAB, ElementA, ElementB>;
  static_assert(!cute::is_same_v<Schedule, Cooperative> || cute::size<0>(TileShape{}) >= 128,
                "the cooperative schedule splits tile M over two warpgroups: tile M must be >= 128");
  static_assert(cute::size(ClusterShape{}) <= 8, "clusters beyond 8 CTAs are not portable; launch() does not opt in");
  static_assert(kDecomposition == Decomposition::kDataParallel || cute::is_same_v<Schedule, Cooperative>,
                "CUTLASS's sm90 stream-K scheduler runs the cooperative schedule only");

  // Mainloop stages fill the shared memory the epilogue leaves.
  using Mainloop = typename cutlass::gemm::collective::CollectiveBuilder<
      cutlass::arch::Sm90, cutlass::arch::OpClassTensorOp, GemmElementA, cutlass::layout::RowMajor,
      kAlignment<GemmElementA>, GemmElementB, cutlass::layout::ColumnMajor, kAlignment<GemmElementB>, float,
      TileShape, ClusterShape,
      cutlass::gemm::collective::StageCountAutoCarveout<static_cast<int>(sizeof(typename Epilogue::SharedStorage))>,
      typename Schedule::MainloopSchedule>::CollectiveOp;
  // CuTe offers wgmma N of 256/192/128/96/64/32/16/8 unless CUTE_SM90_EXTENDED_MMA_SHAPES_ENABLED
  // is defined; otherwise a 224-wide tile runs seven 64x32 wgmmas per k-step, each re-reading A
  // from shared memory (1.5x slower, shared-memory bound under ncu).
  static_assert(cute::size<1>(typename Mainloop::TiledMma::AtomShape_MNK{}) == cute::size<1>(TileShape{}),
                "one wgmma must span the tile's N: compile with -DCUTE_SM90_EXTENDED_MMA_SHAPES_ENABLED");

  using Kernel = cutlass::gemm::kernel::GemmUniversal<cute::Shape<int, int, int, int>, Mainloop, Epilogue,
                                                      TileSchedulerOf<kDecomposition>>;

  // (Mg, Ng, K, L) of the GEMM actually run; validation keeps every size below 2^31.
  static cute::Shape<int, int, int, int> problem_shape(std::int64_t M, std::int64_t N, std::int64_t K) {
    return {static_cast<int>(kSwapAB ? N : M), static_cast<int>(kSwapAB ? M : N), static_cast<int>(K), 1};
  }

  // A [M, lda] and B [N, ldb] as the GEMM's (Mg, K, L) and (Ng, K, L) operands.
  static typename Mainloop::Arguments mainloop_arguments(const void* a, std::int64_t lda, const void* b,
                                                         std::int64_t ldb) {
    using cute::_1;
    typename Kernel::StrideA stride_a{kSwapAB ? ldb : lda, _1{}, std::int64_t{0}};
    typename Kernel::StrideB stride_b{kSwapAB ? lda : ldb, _1{}, std::int64_t{0}};
    return {static_cast<const GemmElementA*>(kSwapAB ? b : a), stride_a,
            static_cast<const GemmElementB*>(kSwapAB ? a : b), stride_b};
  }

  template <class StrideMNL>
  static StrideMNL output_stride(std::int64_t ld) {
    return sm90::output_stride<kSwapAB, StrideMNL>(ld);
  }

  // The GEMM epilogue's own operands: D, and C when the kernel has one. Without a residual the C
  // descriptor still needs a valid tensor: D's, which a tree that skips C never loads.
  static typename Epilogue::Arguments output_arguments(const typename Epilogue::FusionCallbacks::Arguments& tree,
                                                       const void* c, std::int64_t ldc, void* d, std::int64_t ldd) {
    using ElementD = typename Epilogue::ElementD;
    using ElementC = cute::conditional_t<cute::is_void_v<typename Epilogue::ElementC>, ElementD, typename Epilogue::ElementC>;
    return {tree, static_cast<const ElementC*>(c != nullptr ? c : d),
            output_stride<typename Kernel::StrideC>(c != nullptr ? ldc : ldd), static_cast<ElementD*>(d),
            output_stride<typename Kernel::StrideD>(ldd)};
  }

  static typename Kernel::Arguments arguments(std::int64_t M, std::int64_t N, std::int64_t K,
                                              const typename Mainloop::Arguments& mainloop,
                                              const typename Epilogue::Arguments& epilogue, const LaunchPlan& plan) {
    auto scheduler = scheduler_arguments<typename Kernel::TileSchedulerArguments>(plan);
    if constexpr (kDecomposition == Decomposition::kStreamK) {
      scheduler.splits = plan.splits;
      if (plan.stream_k == StreamKMode::kShareTail) {
        scheduler.decomposition_mode = decltype(scheduler.decomposition_mode)::StreamK;
      }
    }
    return {cutlass::gemm::GemmUniversalMode::kGemm, problem_shape(M, N, K), mainloop, epilogue, hardware_info(plan),
            scheduler};
  }
};

// The device arrays a grouped kernel reads, one entry per group (expert): its GEMM's shape, the
// operand pointers and strides, and D's. They depend only on the element types and on whether the
// kernel is swapped, so one setup kernel fills the arrays of every launch of a call
// (src/kernels/sm90/grouped_setup.cuh); GroupedAssembly checks that its kernel reads these types.
template <class Element, class ElementD_, bool kSwapAB>
struct GroupArrays {
  static constexpr bool kSwapped = kSwapAB;
  using ElementD = ElementD_;  // void when the epilogue tree stores the output
  using GroupShape = cute::Shape<int, int, int>;                      // (Mg, Ng, K) of one group's GEMM
  using StrideAB = cute::Stride<std::int64_t, cute::_1, cute::_0>;    // (Mg or Ng, K, L): K-major
  using StrideD = cute::conditional_t<kSwapAB, cute::Stride<cute::_1, std::int64_t, cute::_0>,
                                      cute::Stride<std::int64_t, cute::_1, cute::_0>>;  // (Mg, Ng, L)

  GroupShape* shapes;
  const Element** a;
  StrideAB* stride_a;
  const Element** b;
  StrideAB* stride_b;
  ElementD** d;  // null when ElementD is void
  StrideD* stride_d;

  // Group g's operands: `rows` rows of the activations at x (row stride ldx) and the weight's
  // `weight_rows` at w (row stride ldw). Swapped, the weight is the GEMM's A.
  CUTLASS_HOST_DEVICE void set_group(int g, int rows, int weight_rows, int K, const Element* x, std::int64_t ldx,
                                     const Element* w, std::int64_t ldw) const {
    using cute::_0;
    using cute::_1;
    shapes[g] = kSwapAB ? GroupShape{weight_rows, rows, K} : GroupShape{rows, weight_rows, K};
    a[g] = kSwapAB ? w : x;
    b[g] = kSwapAB ? x : w;
    stride_a[g] = StrideAB{kSwapAB ? ldw : ldx, _1{}, _0{}};
    stride_b[g] = StrideAB{kSwapAB ? ldx : ldw, _1{}, _0{}};
  }

  // Group g's D: its rows of a row-major output, from out on (row stride ldo).
  CUTLASS_HOST_DEVICE void set_output(int g, ElementD* out, std::int64_t ldo) const {
    using cute::_0;
    using cute::_1;
    d[g] = out;
    if constexpr (kSwapAB) {
      stride_d[g] = StrideD{_1{}, ldo, _0{}};
    } else {
      stride_d[g] = StrideD{ldo, _1{}, _0{}};
    }
  }
};

// The grouped counterpart of Assembly: one GEMM per group (expert) in one persistent launch,
// CUTLASS's pointer-array mainloop and group scheduler. Each group's shape, operand pointers and
// strides are device arrays (GroupArrays, written on the stream before the launch), so the group
// sizes never reach the host.
template <class ElementA, class ElementB, class TileShape_, class ClusterShape_, class Schedule, bool kSwapAB,
          class Epilogue>
struct GroupedAssembly {
  using TileShape = TileShape_;
  using ClusterShape = ClusterShape_;
  static_assert(cute::is_same_v<ElementA, ElementB>, "GroupArrays holds one element type for both operands");
  static_assert(!cute::is_same_v<Schedule, Cooperative> || cute::size<0>(TileShape{}) >= 128,
                "the cooperative schedule splits tile M over two warpgroups: tile M must be >= 128");

  using Mainloop = typename cutlass::gemm::collective::CollectiveBuilder<
      cutlass::arch::Sm90, cutlass::arch::OpClassTensorOp, ElementA, cutlass::layout::RowMajor*,
      kAlignment<ElementA>, ElementB, cutlass::layout::ColumnMajor*, kAlignment<ElementB>, float,
      TileShape, ClusterShape,
      cutlass::gemm::collective::StageCountAutoCarveout<static_cast<int>(sizeof(typename Epilogue::SharedStorage))>,
      typename Schedule::GroupedMainloopSchedule>::CollectiveOp;
  static_assert(cute::size<1>(typename Mainloop::TiledMma::AtomShape_MNK{}) == cute::size<1>(TileShape{}),
                "one wgmma must span the tile's N: compile with -DCUTE_SM90_EXTENDED_MMA_SHAPES_ENABLED");

  using GroupArrays = sm90::GroupArrays<ElementA, typename Epilogue::ElementD, kSwapAB>;
  using ProblemShape = cutlass::gemm::GroupProblemShape<typename GroupArrays::GroupShape>;
  using Kernel = cutlass::gemm::kernel::GemmUniversal<ProblemShape, Mainloop, Epilogue>;
  static_assert(cute::is_same_v<typename Kernel::InternalStrideA, typename GroupArrays::StrideAB> &&
                    cute::is_same_v<typename Kernel::InternalStrideB, typename GroupArrays::StrideAB>,
                "the kernel reads the operand strides GroupArrays writes");
  static_assert(cute::is_void_v<typename GroupArrays::ElementD> ||
                    cute::is_same_v<typename Epilogue::InternalStrideD, typename GroupArrays::StrideD>,
                "the kernel reads the output strides GroupArrays writes");

  static typename Kernel::Arguments arguments(int groups, const GroupArrays& arrays,
                                              const typename Epilogue::FusionCallbacks::Arguments& tree,
                                              const LaunchPlan& plan) {
    return {cutlass::gemm::GemmUniversalMode::kGrouped,
            {groups, arrays.shapes, nullptr},
            {arrays.a, arrays.stride_a, arrays.b, arrays.stride_b},
            {tree, nullptr, nullptr, arrays.d, arrays.stride_d},
            hardware_info(plan),
            scheduler_arguments<typename Kernel::TileSchedulerArguments>(plan)};
  }
};

}  // namespace epifuse::detail::sm90

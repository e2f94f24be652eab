// CUTLASS-level API: one sm90 GEMM kernel with an epilogue tree fixed at compile time.
//
//   D[M,N] = Tree(A[M,K] · B[N,K]ᵀ)      (A, B K-major; D, C row-major; fp32 accumulation)
//
// epifuse's own run-time epilogue is one such Tree (src/epilogue/sm90_runtime_epilogue.cuh).
// C++ users who want their own composition write a CUTLASS Sm90 EVT and call gemm_custom();
// examples/custom_epilogue.cu shows it. Needs CUTLASS on the include path and nvcc for sm_90a.
//
// kSwapAB runs the transposed problem Dᵀ[N,M] = B·Aᵀ so the weight fills wgmma's fixed 64-row
// side and few tokens sit on its flexible N side; Dᵀ is then column-major, i.e. D row-major.
// A Tree written for kSwapAB must index its vectors in that transposed (GEMM) space.
#pragma once

#include <cute/tensor.hpp>
#include <cutlass/epilogue/collective/collective_builder.hpp>
#include <cutlass/gemm/collective/collective_builder.hpp>
#include <cutlass/gemm/device/gemm_universal_adapter.h>
#include <cutlass/gemm/dispatch_policy.hpp>
#include <cutlass/gemm/kernel/gemm_universal.hpp>

#include <cstdint>
#include <string>

#include "epifuse/gemm.hpp"
#include "epifuse/sm90/launch.hpp"

namespace epifuse::sm90 {

// Two consumer warpgroups share each tile (tile M >= 128); the epilogue follows the mainloop.
struct Cooperative {
  using MainloopSchedule = cutlass::gemm::KernelTmaWarpSpecializedCooperative;
  using EpilogueSchedule = cutlass::epilogue::TmaWarpSpecializedCooperative;
  static constexpr const char* kName = "coop";
};
// Each consumer warpgroup owns a tile; one's epilogue overlaps the other's mainloop.
struct Pingpong {
  using MainloopSchedule = cutlass::gemm::KernelTmaWarpSpecializedPingpong;
  using EpilogueSchedule = cutlass::epilogue::TmaWarpSpecialized;
  static constexpr const char* kName = "pingpong";
};

// ElementC = void compiles the kernel without C: no residual support, no C shared memory.
template <class ElementAB_, class ElementD_, class TileShape_, class ClusterShape_, class Schedule_, bool kSwapAB_,
          class ElementC_ = ElementD_>
struct KernelConfig {
  using ElementAB = ElementAB_;
  using ElementD = ElementD_;
  using ElementC = ElementC_;
  using TileShape = TileShape_;        // (BLK_M, BLK_N, BLK_K) of the GEMM actually run
  using ClusterShape = ClusterShape_;  // (CLUSTER_M, CLUSTER_N, 1)
  using Schedule = Schedule_;
  static constexpr bool kSwapAB = kSwapAB_;
};

// The persistent scheduler's knobs and the device facts CUTLASS's kernels take, from `config`.
template <class Kernel>
typename Kernel::TileSchedulerArguments scheduler_arguments(const LaunchConfig& config) {
  typename Kernel::TileSchedulerArguments scheduler;
  scheduler.max_swizzle_size = config.max_swizzle;
  using Raster = cutlass::gemm::kernel::detail::RasterOrderOptions;
  scheduler.raster_order = config.raster == RasterOrder::kAlongM   ? Raster::AlongM
                           : config.raster == RasterOrder::kAlongN ? Raster::AlongN
                                                                   : Raster::Heuristic;
  return scheduler;
}

inline cutlass::KernelHardwareInfo hardware_info(const LaunchConfig& config) {
  cutlass::KernelHardwareInfo hw_info;
  hw_info.device_id = config.device;
  hw_info.sm_count = config.sm_count;
  return hw_info;
}

// can_implement, initialize, run on `stream`, each failure as a Status naming the step.
template <class Gemm>
Status launch_cutlass(const typename Gemm::Arguments& arguments, void* workspace, cudaStream_t stream) {
  Gemm gemm;
  cutlass::Status status = gemm.can_implement(arguments);
  if (status != cutlass::Status::kSuccess) {
    return Status::internal(std::string("CUTLASS can_implement refused validated arguments: ") +
                            cutlass::cutlassGetStatusString(status));
  }
  status = gemm.initialize(arguments, workspace, stream);
  if (status != cutlass::Status::kSuccess) {
    return Status::cuda_error(std::string("CUTLASS initialize failed: ") + cutlass::cutlassGetStatusString(status));
  }
  status = gemm.run(stream);
  if (status != cutlass::Status::kSuccess) {
    return Status::cuda_error(std::string("kernel launch failed: ") + cutlass::cutlassGetStatusString(status) +
                              " (" + cudaGetErrorString(cudaGetLastError()) + ")");
  }
  return Status::success();
}

template <class T> struct DTypeOf;
template <> struct DTypeOf<cutlass::bfloat16_t> { static constexpr DType kValue = DType::kBF16; };
template <> struct DTypeOf<cutlass::half_t> { static constexpr DType kValue = DType::kFP16; };
template <> struct DTypeOf<float> { static constexpr DType kValue = DType::kFP32; };

template <class Config, class Tree>
class GemmKernel {
  using ElementAB = typename Config::ElementAB;
  using ElementD = typename Config::ElementD;
  using ElementC = typename Config::ElementC;
  using TileShape = typename Config::TileShape;
  using Schedule = typename Config::Schedule;
  static constexpr bool kSwapAB = Config::kSwapAB;

  static_assert(cute::is_same_v<ElementAB, cutlass::bfloat16_t> || cute::is_same_v<ElementAB, cutlass::half_t>,
                "A and B must be bf16 or fp16");
  static_assert(!cute::is_same_v<Schedule, Cooperative> || cute::size<0>(TileShape{}) >= 128,
                "the cooperative schedule splits tile M over two warpgroups: tile M must be >= 128");

  using LayoutA = cutlass::layout::RowMajor;     // GEMM A: (Mg, K), K contiguous
  using LayoutB = cutlass::layout::ColumnMajor;  // GEMM B: (Ng, K), K contiguous
  using LayoutD = cute::conditional_t<kSwapAB, cutlass::layout::ColumnMajor, cutlass::layout::RowMajor>;
  static constexpr int kAlignmentAB = 16 / sizeof(ElementAB);
  static constexpr int kAlignmentD = 16 / sizeof(ElementD);
  static constexpr int kAlignmentC =
      16 / sizeof(cute::conditional_t<cute::is_void_v<ElementC>, ElementD, ElementC>);  // unused when void

  using CollectiveEpilogue = typename cutlass::epilogue::collective::CollectiveBuilder<
      cutlass::arch::Sm90, cutlass::arch::OpClassTensorOp, TileShape, typename Config::ClusterShape,
      cutlass::epilogue::collective::EpilogueTileAuto, float, float, ElementC, LayoutD, kAlignmentC, ElementD,
      LayoutD, kAlignmentD, typename Schedule::EpilogueSchedule, Tree>::CollectiveOp;

  // Mainloop stages fill the shared memory the epilogue leaves.
  using CollectiveMainloop = typename cutlass::gemm::collective::CollectiveBuilder<
      cutlass::arch::Sm90, cutlass::arch::OpClassTensorOp, ElementAB, LayoutA, kAlignmentAB, ElementAB, LayoutB,
      kAlignmentAB, float, TileShape, typename Config::ClusterShape,
      cutlass::gemm::collective::StageCountAutoCarveout<static_cast<int>(
          sizeof(typename CollectiveEpilogue::SharedStorage))>,
      typename Schedule::MainloopSchedule>::CollectiveOp;

  using Kernel = cutlass::gemm::kernel::GemmUniversal<cute::Shape<int, int, int, int>, CollectiveMainloop,
                                                      CollectiveEpilogue>;
  using Gemm = cutlass::gemm::device::GemmUniversalAdapter<Kernel>;

 public:
  using TreeArguments = typename Tree::Arguments;

  // `args` gives shapes, pointers and workspace, and C through args.epilogue.residual/ldc;
  // the rest of args.epilogue is the run-time path's and is ignored here.
  static typename Gemm::Arguments arguments(const GemmArgs& args, const TreeArguments& tree,
                                            const LaunchConfig& config) {
    using cute::_1;
    const int gemm_m = static_cast<int>(kSwapAB ? args.N : args.M);
    const int gemm_n = static_cast<int>(kSwapAB ? args.M : args.N);
    const auto* gemm_a = static_cast<const ElementAB*>(kSwapAB ? args.B : args.A);
    const auto* gemm_b = static_cast<const ElementAB*>(kSwapAB ? args.A : args.B);
    typename Kernel::StrideA stride_a{kSwapAB ? args.ldb : args.lda, _1{}, std::int64_t{0}};  // (Mg, K, L)
    typename Kernel::StrideB stride_b{kSwapAB ? args.lda : args.ldb, _1{}, std::int64_t{0}};  // (Ng, K, L)
    // D and C are row-major [M, ld] in memory: (Mg, Ng, L) strides (ld, 1), or (1, ld) swapped.
    auto output_stride = [](std::int64_t ld) {
      if constexpr (kSwapAB) {
        return typename Kernel::StrideD{_1{}, ld, std::int64_t{0}};
      } else {
        return typename Kernel::StrideD{ld, _1{}, std::int64_t{0}};
      }
    };
    auto* d = static_cast<ElementD*>(args.D);
    // Without a residual the C descriptor still needs a valid tensor; the tree never loads it.
    const void* residual = args.epilogue.residual;
    const auto* c = static_cast<const ElementC*>(residual ? residual : args.D);
    const std::int64_t ldc = residual ? args.epilogue.ldc : args.ldd;

    return typename Gemm::Arguments{
        cutlass::gemm::GemmUniversalMode::kGemm,
        {gemm_m, gemm_n, static_cast<int>(args.K), 1},
        {gemm_a, stride_a, gemm_b, stride_b},
        {tree, c, output_stride(ldc), d, output_stride(args.ldd)},
        hardware_info(config),
        scheduler_arguments<Kernel>(config),
    };
  }

  static std::size_t workspace_bytes(const GemmArgs& args, const TreeArguments& tree, const LaunchConfig& config) {
    return Gemm::get_workspace_size(arguments(args, tree, config));
  }

  // Launches on `stream`. The caller has validated `args` (validate_gemm_args) and sized the workspace.
  static Status run(const GemmArgs& args, const TreeArguments& tree, const LaunchConfig& config,
                    cudaStream_t stream) {
    return launch_cutlass<Gemm>(arguments(args, tree, config), args.workspace, stream);
  }

  static GemmKernelInfo info(const char* name, EpilogueCoverage coverage) {
    return {name,
            DTypeOf<ElementAB>::kValue,
            DTypeOf<ElementD>::kValue,
            kSwapAB,
            !cute::is_void_v<ElementC>,
            coverage,
            cute::size<0>(TileShape{}),
            cute::size<1>(TileShape{}),
            cute::size<2>(TileShape{})};
  }
};

// Checks `args` as gemm() does (shapes, alignment, aliasing; args.epilogue's run-time fields must
// be left at their defaults), then launches Tree with `tree` arguments on the current device.
template <class Config, class Tree>
Status gemm_custom(const GemmArgs& args, const typename Tree::Arguments& tree, cudaStream_t stream) {
  using Kernel = GemmKernel<Config, Tree>;
  GemmArgs checked = args;
  checked.input_dtype = DTypeOf<typename Config::ElementAB>::kValue;
  checked.output_dtype = DTypeOf<typename Config::ElementD>::kValue;
  if (Status s = validate_gemm_args(checked); !s.ok()) return s;
  if (cute::is_void_v<typename Config::ElementC> && args.epilogue.residual) {
    return Status::invalid_argument("gemm_custom: this kernel is compiled without C; epilogue.residual must be null");
  }
  if (args.M == 0 || args.N == 0) return Status::success();
  LaunchConfig config;
  if (Status s = default_launch_config(&config); !s.ok()) return s;
  const std::size_t needed = Kernel::workspace_bytes(args, tree, config);
  if (needed > 0 && (args.workspace == nullptr || args.workspace_bytes < needed)) {
    return Status::invalid_argument("workspace: this epilogue needs " + std::to_string(needed) + " bytes, got " +
                                    std::to_string(args.workspace == nullptr ? 0 : args.workspace_bytes));
  }
  return Kernel::run(args, tree, config, stream);
}

}  // namespace epifuse::sm90

// CUTLASS-level API: one sm90 GEMM kernel with an epilogue tree fixed at compile time.
//
//   D[M,N] = Tree(A[M,K] · B[N,K]ᵀ)      (A, B K-major; D, C row-major; fp32 accumulation)
//
// epifuse's own run-time epilogue is one such Tree (src/epilogue/sm90_runtime_epilogue.cuh).
// C++ users who want their own composition write a CUTLASS Sm90 EVT and call gemm_custom();
// examples/custom_epilogue.cu shows it. Needs CUTLASS 4.2 on the include path and nvcc for sm_90a;
// include this header before any CUTLASS header (cutlass_driver_calls.hpp says why).
//
// kSwapAB runs the transposed problem Dᵀ[N,M] = B·Aᵀ so the weight fills wgmma's fixed 64-row
// side and few tokens sit on its flexible N side; Dᵀ is then column-major, i.e. D row-major.
// A Tree written for kSwapAB must index its vectors in that transposed (GEMM) space.
#pragma once

#include "epifuse/detail/cutlass_driver_calls.hpp"  // first: it sets how CUTLASS calls the driver

#include <cute/tensor.hpp>

#include <string>

#include "epifuse/detail/launch_plan.hpp"
#include "epifuse/detail/sm90_assembly.cuh"
#include "epifuse/detail/sm90_launch.cuh"
#include "epifuse/gemm.hpp"

namespace epifuse::sm90 {

// Two consumer warpgroups share each tile (tile M >= 128); the epilogue follows the mainloop.
using Cooperative = detail::sm90::Cooperative;
// Each consumer warpgroup owns a tile; one's epilogue overlaps the other's mainloop.
using Pingpong = detail::sm90::Pingpong;

// ElementC = void compiles the kernel without C: no residual support, no C shared memory.
// Otherwise C has D's element type, and every call passes it (epilogue.residual, ldc).
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

// Checks `args` as gemm() does (shapes, alignment, aliasing, the stream's device; args.epilogue's
// run-time fields must be left at their defaults, args.kernel empty), then launches Tree with
// `tree` arguments on `stream`.
template <class Config, class Tree>
Status gemm_custom(const GemmArgs& args, const typename Tree::Arguments& tree, cudaStream_t stream) {
  using ElementAB = typename Config::ElementAB;
  using ElementD = typename Config::ElementD;
  using Epilogue = detail::sm90::CollectiveEpilogue<
      typename Config::TileShape, typename Config::ClusterShape, cutlass::epilogue::collective::EpilogueTileAuto,
      typename Config::ElementC, ElementD, detail::sm90::OutputLayout<Config::kSwapAB>, typename Config::Schedule,
      Tree>;
  using Assembly = detail::sm90::Assembly<ElementAB, ElementAB, typename Config::TileShape,
                                          typename Config::ClusterShape, typename Config::Schedule, Config::kSwapAB,
                                          Epilogue>;
  using Kernel = typename Assembly::Kernel;

  GemmArgs checked = args;
  checked.a_dtype = checked.b_dtype = detail::sm90::DTypeOf<ElementAB>::kValue;
  checked.d_dtype = detail::sm90::DTypeOf<ElementD>::kValue;
  if (Status s = validate_gemm_args(checked); !s.ok()) return s;
  static_assert(cute::is_void_v<typename Config::ElementC> || cute::is_same_v<typename Config::ElementC, ElementD>,
                "C takes D's element type (validation sizes C as D)");
  if (cute::is_void_v<typename Config::ElementC> && args.epilogue.residual) {
    return Status::invalid_argument("gemm_custom: this kernel is compiled without C; epilogue.residual must be null");
  }
  // A tree may load C whenever the kernel has one: a call without it would read D's old contents.
  if (!cute::is_void_v<typename Config::ElementC> && !args.epilogue.residual) {
    return Status::invalid_argument(
        "gemm_custom: this kernel is compiled with C; pass it in epilogue.residual (or compile with ElementC = void)");
  }
  if (args.kernel) return Status::invalid_argument("gemm_custom: args.kernel must be empty (the kernel is Config)");
  if (args.M == 0 || args.N == 0) return Status::success();
  detail::LaunchPlan plan;
  if (Status s = detail::launch_plan_for_stream(stream, Arch::kSm90, &plan); !s.ok()) return s;
  if (Status s = detail::check_gemm_pointers(args, plan.device); !s.ok()) return s;
  const typename Kernel::Arguments arguments = Assembly::arguments(
      args.M, args.N, args.K, Assembly::mainloop_arguments(args.A, args.lda, args.B, args.ldb),
      Assembly::output_arguments(tree, args.epilogue.residual, args.epilogue.ldc, args.D, args.ldd), plan);
  if (Status s = detail::check_workspace("gemm_custom", Kernel::get_workspace_size(arguments), args.workspace,
                                         args.workspace_bytes);
      !s.ok()) {
    return s;
  }
  return detail::sm90::launch<Kernel>(arguments, args.workspace, plan.device, stream);
}

}  // namespace epifuse::sm90

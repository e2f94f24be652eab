// The run-time composable epilogue as CUTLASS Sm90 epilogue visitor trees (EVT).
//
// The full tree serves every combination of epifuse::Epilogue: absent vectors become neutral
// broadcasts, C is fetched only when present, the activation is a run-time switch. Two narrow
// trees serve the commonest epilogues for less time per tile (EpilogueCoverage in epifuse/epilogue/epilogue.hpp):
// cast only, and alpha + column bias + activation. Trees are written in GEMM coordinates; with
// kSwapAB the kernel computes Dᵀ = B·Aᵀ, so the user's per-row (M) vectors run along the GEMM's N
// and per-column (N) vectors along its M.
//
//   y = linear_activation(acc, row_scale, col_scale, col_bias, row_bias, C)
//   amax(y), row_sum(y), row_amax(y) [, col_sum(y), col_amax(y)];   D = cast(y)
#pragma once

#include "epifuse/detail/cutlass_driver_calls.hpp"  // first: it sets how CUTLASS calls the driver

#include <cutlass/epilogue/fusion/sm90_callbacks_tma_warpspecialized.hpp>
#include <cutlass/epilogue/fusion/sm90_visitor_compute_tma_warpspecialized.hpp>
#include <cutlass/epilogue/fusion/sm90_visitor_load_tma_warpspecialized.hpp>
#include <cutlass/epilogue/fusion/sm90_visitor_store_tma_warpspecialized.hpp>
#include <cutlass/epilogue/thread/activation.h>

#include "epifuse/epilogue/epilogue.hpp"
#include "epilogue/linear_activation.cuh"
#include "epilogue/sm90_optional_source.cuh"

namespace epifuse::device {

namespace fusion = cutlass::epilogue::fusion;
constexpr auto kRound = cutlass::FloatRoundStyle::round_to_nearest;

template <class T>
using AbsMaxReduce = cutlass::maximum_absolute_value_reduction<T, /*PropagateNaN=*/true>;
template <class T>
using MaxReduce = cutlass::maximum<T, /*PropagateNaN=*/true>;

// A fp32 vector broadcast along the GEMM's M (one value per GEMM row) or N (per GEMM column).
// LStride: the distance between the vectors of consecutive batches or groups (grouped kernels:
// one vector per group, the tile's l).
template <class TileShape, bool kAlongGemmM, class LStride = cute::_0>
using VectorBroadcast =
    cute::conditional_t<kAlongGemmM,
                        fusion::Sm90ColBroadcast<0, TileShape, float, float, cute::Stride<cute::_1, cute::_0, LStride>>,
                        fusion::Sm90RowBroadcast<0, TileShape, float, float, cute::Stride<cute::_0, cute::_1, LStride>>>;

// A CUTLASS reduction whose output is optional: it asks for workspace (partial results, tile
// counters) only when its output is requested, and an atomic one (max) starts its output at 0,
// the identity of max |y|, itself, in initialize_workspace: after CUTLASS's can_implement, so a
// refused call writes nothing. (CUTLASS would use the driver API for that; see
// CUTLASS_SKIP_REDUCTION_INIT in CMakeLists.txt.)
template <class Reduction, bool kAtomic>
struct OptionalReduction : Reduction {
  using Reduction::Reduction;
  using Arguments = typename Reduction::Arguments;

  template <class A>
  static auto output(const A& args) -> decltype(args.ptr_row) {
    return args.ptr_row;
  }
  template <class A>
  static auto output(const A& args) -> decltype(args.ptr_col) {
    return args.ptr_col;
  }
  template <class A>
  static auto output(const A& args) -> decltype(args.ptr_scalar) {
    return args.ptr_scalar;
  }

  template <class ProblemShape>
  static std::size_t get_workspace_size(const ProblemShape& shape, const Arguments& args) {
    return output(args) ? Reduction::get_workspace_size(shape, args) : 0;
  }
  // `length`: elements of the output.
  template <class ProblemShape>
  static cutlass::Status zero_or_initialize(const ProblemShape& shape, const Arguments& args, std::size_t length,
                                            void* workspace, cudaStream_t stream, cutlass::CudaHostAdapter* adapter) {
    if (!output(args)) return cutlass::Status::kSuccess;
    if constexpr (kAtomic) {
      return cudaMemsetAsync(output(args), 0, length * sizeof(float), stream) == cudaSuccess
                 ? cutlass::Status::kSuccess
                 : cutlass::Status::kErrorInternal;
    } else {
      return Reduction::initialize_workspace(shape, args, workspace, stream, adapter);
    }
  }
};

// A vector reduction along the GEMM's M (kAlongGemmM: one value per GEMM row) or N.
template <class Reduction, bool kAlongGemmM, bool kAtomic>
struct OptionalVectorReduction : OptionalReduction<Reduction, kAtomic> {
  using OptionalReduction<Reduction, kAtomic>::OptionalReduction;
  using Arguments = typename Reduction::Arguments;
  template <class ProblemShape>
  static cutlass::Status initialize_workspace(const ProblemShape& shape, const Arguments& args, void* workspace,
                                              cudaStream_t stream, cutlass::CudaHostAdapter* adapter = nullptr) {
    const auto length = static_cast<std::size_t>(kAlongGemmM ? cute::get<0>(shape) : cute::get<1>(shape));
    return OptionalVectorReduction::zero_or_initialize(shape, args, length, workspace, stream, adapter);
  }
};

// amax: an atomic max over CTAs into one float.
struct ScalarAmax
    : OptionalReduction<fusion::Sm90ScalarReduction<AbsMaxReduce, cutlass::atomic_maximum, float, float, kRound>, true> {
  using OptionalReduction::OptionalReduction;
  template <class ProblemShape>
  static cutlass::Status initialize_workspace(const ProblemShape& shape, const Arguments& args, void* workspace,
                                              cudaStream_t stream, cutlass::CudaHostAdapter* adapter = nullptr) {
    return zero_or_initialize(shape, args, 1, workspace, stream, adapter);
  }
};

// An fp32 reduction of y into a vector along the GEMM's M (reducing over N) or N. Maxima combine
// CTAs with atomics, which is exact and deterministic for max; sums combine per-CTA partial
// results in a fixed order in the last CTA, which keeps them deterministic.
template <class TileShape, bool kAlongGemmM, template <class> class RegReduce, template <class> class Reduce,
          template <class> class GmemReduce>
using VectorReduction = OptionalVectorReduction<
    cute::conditional_t<kAlongGemmM,
                        fusion::Sm90ColReduction<RegReduce, Reduce, GmemReduce, 0, TileShape, float, float, kRound,
                                                 cute::Stride<cute::_1, cute::_0, cute::_0>>,
                        fusion::Sm90RowReduction<RegReduce, Reduce, GmemReduce, 0, TileShape, float, float, kRound,
                                                 cute::Stride<cute::_0, cute::_1, cute::_0>>>,
    kAlongGemmM, cutlass::is_atomic<GmemReduce<float>>::value>;

template <class TileShape, bool kAlongGemmM>
using SumReduction = VectorReduction<TileShape, kAlongGemmM, cutlass::plus, cutlass::plus, cutlass::plus>;
template <class TileShape, bool kAlongGemmM>
using AbsMaxReduction = VectorReduction<TileShape, kAlongGemmM, AbsMaxReduce, MaxReduce, cutlass::atomic_maximum>;

// Wraps Child in a reduction node Node when kEnable; reductions pass their input through.
template <bool kEnable, class Node, class Child>
using ReductionIf = cute::conditional_t<kEnable, fusion::Sm90EVT<Node, Child>, Child>;

template <class TileShape, class ElementD, bool kSwapAB, EpilogueCoverage kCoverage>
struct Sm90RuntimeEpilogue {
  static constexpr bool kUserRowsAlongGemmM = !kSwapAB;
  static constexpr bool kColumnReductions = kCoverage == EpilogueCoverage::kFullWithColumnReductions;

  template <template <class> class Fn, class ElementOut>
  using Compute = fusion::Sm90Compute<Fn, ElementOut, float, kRound>;

  // kCastOnly: D = cast(acc).
  using CastOnlyTree = fusion::Sm90EVT<Compute<cutlass::epilogue::thread::Identity, ElementD>, fusion::Sm90AccFetch>;

  // kBiasActivation: D = cast(act(alpha·acc + col_bias[n])).
  using BiasActivationTree = fusion::Sm90EVT<Compute<BiasActivation, ElementD>, fusion::Sm90AccFetch,
                                             VectorBroadcast<TileShape, !kUserRowsAlongGemmM>>;  // col_bias[n]

  // kFull and kFullWithColumnReductions.
  using LinearActivationNode =
      fusion::Sm90EVT<Compute<LinearActivation, float>,
                      fusion::Sm90AccFetch,
                      VectorBroadcast<TileShape, kUserRowsAlongGemmM>,    // row_scale[m]
                      VectorBroadcast<TileShape, !kUserRowsAlongGemmM>,   // col_scale[n]
                      VectorBroadcast<TileShape, !kUserRowsAlongGemmM>,   // col_bias[n]
                      VectorBroadcast<TileShape, kUserRowsAlongGemmM>,    // row_bias[m]
                      Sm90OptionalSource<ElementD>>;                      // C[m,n]
  using WithAmax = fusion::Sm90EVT<ScalarAmax, LinearActivationNode>;  // amax
  using WithRowReductions =
      fusion::Sm90EVT<AbsMaxReduction<TileShape, kUserRowsAlongGemmM>,                             // row_amax[m]
                      fusion::Sm90EVT<SumReduction<TileShape, kUserRowsAlongGemmM>, WithAmax>>;  // row_sum[m]
  using WithColumnReductions =
      ReductionIf<kColumnReductions, AbsMaxReduction<TileShape, !kUserRowsAlongGemmM>,         // col_amax[n]
                  ReductionIf<kColumnReductions, SumReduction<TileShape, !kUserRowsAlongGemmM>,  // col_sum[n]
                              WithRowReductions>>;
  // The one cast to D, after every reduction has seen y in fp32.
  using FullTree = fusion::Sm90EVT<Compute<cutlass::epilogue::thread::Identity, ElementD>, WithColumnReductions>;

  using Tree = cute::conditional_t<kCoverage == EpilogueCoverage::kCastOnly, CastOnlyTree,
                                   cute::conditional_t<kCoverage == EpilogueCoverage::kBiasActivation,
                                                       BiasActivationTree, FullTree>>;
  using Arguments = typename Tree::Arguments;

  // EVT arguments list the children first and the node last; binary levels name them op_0, op_1.
  // Reductions start from their identity: 0 for sums and for |y| maxima alike. The kernels read an
  // fp32 column bias: the API widens a 16-bit one into the workspace before the launch.
  static Arguments arguments(const Epilogue& e) {
    const auto* col_bias = static_cast<const float*>(e.col_bias);
    const ActivationProgram activation = compile_activation(e.activation, e.leaky_slope, e.clamp_lo, e.clamp_hi);
    if constexpr (kCoverage == EpilogueCoverage::kCastOnly) {
      return {};
    } else if constexpr (kCoverage == EpilogueCoverage::kBiasActivation) {
      return {{}, {col_bias, 0.0f, {}}, BiasActivationArguments{e.alpha, activation}};
    } else {
      LinearActivationArguments math;
      math.alpha = e.alpha;
      math.beta = e.beta;
      math.activation = activation;
      math.affine = e.alpha != 1.0f || e.row_scale || e.col_scale || e.col_bias || e.row_bias;
      math.residual = e.residual != nullptr;
      math.residual_before_activation = e.residual_order == ResidualOrder::kBeforeActivation;
      const typename LinearActivationNode::Arguments linear = {
          {},                       // acc
          {e.row_scale, 1.0f, {}},  // row_scale, absent = 1
          {e.col_scale, 1.0f, {}},  // col_scale, absent = 1
          {col_bias, 0.0f, {}},     // col_bias, absent = 0
          {e.row_bias, 0.0f, {}},   // row_bias, absent = 0
          {e.residual != nullptr},  // C
          math,
      };
      const typename WithAmax::Arguments with_amax = {linear, {e.amax, 0.0f, {}}};
      const typename WithRowReductions::Arguments with_rows = {{with_amax, {e.row_sum, 0.0f, {}}},
                                                               {e.row_amax, 0.0f, {}}};
      if constexpr (kColumnReductions) {
        const typename WithColumnReductions::Arguments with_columns = {{with_rows, {e.col_sum, 0.0f, {}}},
                                                                       {e.col_amax, 0.0f, {}}};
        return {with_columns, {}};
      } else {
        return {with_rows, {}};
      }
    }
  }
};

}  // namespace epifuse::device

// The run-time composable epilogue as a CUTLASS Sm90 epilogue visitor tree (EVT).
//
// One tree serves every combination of epifuse::Epilogue: absent vectors become neutral
// broadcasts, C is fetched only when present, the activation is a run-time switch. Trees
// are written in GEMM coordinates; with kSwapAB the kernel computes Dᵀ = B·Aᵀ, so the user's
// per-row (M) vectors run along the GEMM's N and per-column (N) vectors along its M.
//
//   fast tree:      D = cast(linear_activation(acc, row_scale, col_scale, col_bias, row_bias, C))
//   reducing tree:  y = linear_activation(...);  row/col sum+amax(y), amax(y);  D = cast(y)
#pragma once

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
template <class TileShape, bool kAlongGemmM>
using VectorBroadcast =
    cute::conditional_t<kAlongGemmM,
                        fusion::Sm90ColBroadcast<0, TileShape, float, float, cute::Stride<cute::_1, cute::_0, cute::_0>>,
                        fusion::Sm90RowBroadcast<0, TileShape, float, float, cute::Stride<cute::_0, cute::_1, cute::_0>>>;

// A deterministic fp32 reduction of y into a vector along the GEMM's M (reduces over N) or N.
template <class TileShape, bool kAlongGemmM, template <class> class RegReduce, template <class> class Reduce>
using VectorReduction = cute::conditional_t<
    kAlongGemmM,
    fusion::Sm90ColReduction<RegReduce, Reduce, Reduce, 0, TileShape, float, float, kRound,
                             cute::Stride<cute::_1, cute::_0, cute::_0>>,
    fusion::Sm90RowReduction<RegReduce, Reduce, Reduce, 0, TileShape, float, float, kRound,
                             cute::Stride<cute::_0, cute::_1, cute::_0>>>;

template <class TileShape, class ElementD, bool kSwapAB, bool kReductions>
struct Sm90RuntimeEpilogue {
  static constexpr bool kUserRowsAlongGemmM = !kSwapAB;

  template <class ElementOut>
  using LinearActivationNode =
      fusion::Sm90EVT<fusion::Sm90Compute<LinearActivation, ElementOut, float, kRound>,
                      fusion::Sm90AccFetch,
                      VectorBroadcast<TileShape, kUserRowsAlongGemmM>,    // row_scale[m]
                      VectorBroadcast<TileShape, !kUserRowsAlongGemmM>,   // col_scale[n]
                      VectorBroadcast<TileShape, !kUserRowsAlongGemmM>,   // col_bias[n]
                      VectorBroadcast<TileShape, kUserRowsAlongGemmM>,    // row_bias[m]
                      Sm90OptionalSource<ElementD>>;                      // C[m,n]

  // Reductions pass y through unchanged; the Identity root does the single cast to D.
  using ReducingTree = fusion::Sm90EVT<
      fusion::Sm90Compute<cutlass::epilogue::thread::Identity, ElementD, float, kRound>,
      fusion::Sm90EVT<
          fusion::Sm90ScalarReduction<AbsMaxReduce, cutlass::atomic_maximum, float, float, kRound>,  // amax
          fusion::Sm90EVT<
              VectorReduction<TileShape, !kUserRowsAlongGemmM, AbsMaxReduce, MaxReduce>,  // col_amax[n]
              fusion::Sm90EVT<
                  VectorReduction<TileShape, !kUserRowsAlongGemmM, cutlass::plus, cutlass::plus>,  // col_sum[n]
                  fusion::Sm90EVT<
                      VectorReduction<TileShape, kUserRowsAlongGemmM, AbsMaxReduce, MaxReduce>,  // row_amax[m]
                      fusion::Sm90EVT<
                          VectorReduction<TileShape, kUserRowsAlongGemmM, cutlass::plus, cutlass::plus>,  // row_sum[m]
                          LinearActivationNode<float>>>>>>>;

  using Tree = cute::conditional_t<kReductions, ReducingTree, LinearActivationNode<ElementD>>;
  using Arguments = typename Tree::Arguments;

  using LinearActivationArgs = typename LinearActivationNode<float>::Arguments;

  static LinearActivationArgs linear_activation_arguments(const Epilogue& e) {
    LinearActivationArguments math;
    math.alpha = e.alpha;
    math.beta = e.beta;
    math.activation = {e.activation, e.leaky_slope, e.clamp_lo, e.clamp_hi};
    math.residual = e.residual != nullptr;
    math.residual_before_activation = e.residual_order == ResidualOrder::kBeforeActivation;
    // EVT arguments list the children first and the node last.
    return {
        {},                       // acc
        {e.row_scale, 1.0f, {}},  // row_scale, absent = 1
        {e.col_scale, 1.0f, {}},  // col_scale, absent = 1
        {e.col_bias, 0.0f, {}},   // col_bias, absent = 0
        {e.row_bias, 0.0f, {}},   // row_bias, absent = 0
        {e.residual != nullptr},  // C
        math,
    };
  }

  static Arguments arguments(const Epilogue& e) {
    if constexpr (kReductions) {
      // Each binary EVT level holds op_0 (child) and op_1 (node); walk down to the linear-activation node.
      // Reductions start from their identity: 0 for sums and for |y| maxima alike.
      Arguments root{};
      auto& amax_level = root.op_0;
      auto& col_amax_level = amax_level.op_0;
      auto& col_sum_level = col_amax_level.op_0;
      auto& row_amax_level = col_sum_level.op_0;
      auto& row_sum_level = row_amax_level.op_0;
      row_sum_level.op_0 = linear_activation_arguments(e);
      row_sum_level.op_1 = {e.row_sum, 0.0f, {}};
      row_amax_level.op_1 = {e.row_amax, 0.0f, {}};
      col_sum_level.op_1 = {e.col_sum, 0.0f, {}};
      col_amax_level.op_1 = {e.col_amax, 0.0f, {}};
      amax_level.op_1 = {e.amax, 0.0f, {}};
      return root;
    } else {
      return linear_activation_arguments(e);
    }
  }
};

}  // namespace epifuse::device

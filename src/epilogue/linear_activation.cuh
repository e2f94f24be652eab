// The element math of epifuse::Epilogue (include/epifuse/epilogue/epilogue.hpp) as a CUTLASS
// Sm90Compute functor: six inputs in, y out, all fp32.
//   z = alpha · row_scale · col_scale · acc + col_bias + row_bias
//   y = act(z + beta·C) | act(z) + beta·C
// Absent vectors arrive as their neutral value (1 or 0) from the broadcast nodes; an absent C
// arrives as garbage and is ignored through `residual`.
#pragma once

#include "epifuse/detail/cutlass_driver_calls.hpp"  // first: it sets how CUTLASS calls the driver

#include <cutlass/array.h>

#include "epilogue/activation.cuh"

namespace epifuse::device {

struct LinearActivationArguments {
  float alpha = 1.0f;
  float beta = 0.0f;
  ActivationProgram activation{};
  bool affine = false;  // any of alpha != 1, scales, biases: otherwise z = acc
  bool residual = false;
  bool residual_before_activation = false;
};

// Primary template: Sm90Compute instantiates it with the scalar compute type to find Arguments.
template <class T>
struct LinearActivation {
  using Arguments = LinearActivationArguments;
};

template <int kN>
struct LinearActivation<cutlass::Array<float, kN>> {
  using Arguments = LinearActivationArguments;
  using Fragment = cutlass::Array<float, kN>;

  __device__ __forceinline__ Fragment operator()(const Fragment& acc, const Fragment& row_scale,
                                                 const Fragment& col_scale, const Fragment& col_bias,
                                                 const Fragment& row_bias, const Fragment& c,
                                                 const Arguments& args) const {
    Fragment y = acc;
    if (args.affine) {
#pragma unroll
      for (int i = 0; i < kN; ++i) y[i] = fmaf(args.alpha * row_scale[i] * col_scale[i], acc[i], col_bias[i] + row_bias[i]);
    }
    if (args.residual && args.residual_before_activation) {
#pragma unroll
      for (int i = 0; i < kN; ++i) y[i] = fmaf(args.beta, c[i], y[i]);
    }
    activate(y, args.activation);
    if (args.residual && !args.residual_before_activation) {
#pragma unroll
      for (int i = 0; i < kN; ++i) y[i] = fmaf(args.beta, c[i], y[i]);
    }
    return y;
  }
};

// y = act(alpha·acc + col_bias): the narrow epilogue of nn.Linear with a bias and an activation.
struct BiasActivationArguments {
  float alpha = 1.0f;
  ActivationProgram activation{};
};

template <class T>
struct BiasActivation {
  using Arguments = BiasActivationArguments;
};

template <int kN>
struct BiasActivation<cutlass::Array<float, kN>> {
  using Arguments = BiasActivationArguments;
  using Fragment = cutlass::Array<float, kN>;

  __device__ __forceinline__ Fragment operator()(const Fragment& acc, const Fragment& col_bias,
                                                 const Arguments& args) const {
    Fragment y;
#pragma unroll
    for (int i = 0; i < kN; ++i) y[i] = fmaf(args.alpha, acc[i], col_bias[i]);
    activate(y, args.activation);
    return y;
  }
};

}  // namespace epifuse::device

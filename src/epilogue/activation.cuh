// Device side of epifuse::Activation: fp32 math on one fragment, activation chosen at run time.
// The switch sits outside the element loop, so a launch-uniform kind costs one branch per fragment.
//
// Cost matters here: the cooperative kernel's tensor cores wait while the epilogue runs. σ is
// 1/(1 + 2^(−x·log2 e)) on the special-function unit (ex2.approx, rcp: a few ulp, no
// cancellation), and GELU-tanh is rewritten through σ, since x/2·(1 + tanh u) = x·σ(2u): the
// same function, accurate in the negative tail where 1 + tanh u cancels. tanh and erf use the
// accurate library versions. No compiler fast-math flags.
#pragma once

#include <cuda_runtime.h>

#include "epifuse/epilogue/activation.hpp"

namespace epifuse::device {

struct ActivationParams {
  Activation kind = Activation::kIdentity;
  float leaky_slope = 0.0f;
  float clamp_lo = 0.0f;
  float clamp_hi = 0.0f;
};

// 1/(1 + e^(−x)); saturates to 0 and 1 without NaN (rcp(inf) = 0).
__device__ __forceinline__ float sigmoid(float x) { return __frcp_rn(1.0f + __expf(-x)); }

__device__ __forceinline__ float gelu_tanh(float x) {
  constexpr float kTwoSqrt2OverPi = 2.0f * 0.7978845608028654f;
  constexpr float kCubic = 0.044715f;
  return x * sigmoid(kTwoSqrt2OverPi * fmaf(kCubic * x, x * x, x));
}

__device__ __forceinline__ float gelu_erf(float x) {
  constexpr float kInvSqrt2 = 0.7071067811865476f;
  return 0.5f * x * (1.0f + erff(x * kInvSqrt2));
}

__device__ __forceinline__ float hard_swish(float x) {
  return x * fminf(fmaxf(x + 3.0f, 0.0f), 6.0f) * (1.0f / 6.0f);
}

// Applies p.kind to every element of `v` (anything with size() and operator[] of float).
template <class Fragment>
__device__ __forceinline__ void activate(Fragment& v, const ActivationParams& p) {
  constexpr int kSize = static_cast<int>(Fragment::kElements);
  switch (p.kind) {
    case Activation::kIdentity:
      break;
    case Activation::kReLU:
#pragma unroll
      for (int i = 0; i < kSize; ++i) v[i] = fmaxf(v[i], 0.0f);
      break;
    case Activation::kGeluTanh:
#pragma unroll
      for (int i = 0; i < kSize; ++i) v[i] = gelu_tanh(v[i]);
      break;
    case Activation::kGeluErf:
#pragma unroll
      for (int i = 0; i < kSize; ++i) v[i] = gelu_erf(v[i]);
      break;
    case Activation::kSiLU:
#pragma unroll
      for (int i = 0; i < kSize; ++i) v[i] = v[i] * sigmoid(v[i]);
      break;
    case Activation::kSigmoid:
#pragma unroll
      for (int i = 0; i < kSize; ++i) v[i] = sigmoid(v[i]);
      break;
    case Activation::kTanh:
#pragma unroll
      for (int i = 0; i < kSize; ++i) v[i] = tanhf(v[i]);
      break;
    case Activation::kHardSwish:
#pragma unroll
      for (int i = 0; i < kSize; ++i) v[i] = hard_swish(v[i]);
      break;
    case Activation::kLeakyReLU:
#pragma unroll
      for (int i = 0; i < kSize; ++i) v[i] = v[i] >= 0.0f ? v[i] : p.leaky_slope * v[i];
      break;
    case Activation::kClamp:
#pragma unroll
      for (int i = 0; i < kSize; ++i) v[i] = fminf(fmaxf(v[i], p.clamp_lo), p.clamp_hi);
      break;
  }
}

}  // namespace epifuse::device

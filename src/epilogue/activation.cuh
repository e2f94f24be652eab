// Device side of epifuse::Activation: fp32 math on one fragment, activation chosen at run time.
// The switch sits outside the element loop, so a launch-uniform kind costs one branch per fragment.
// Library functions (expf, tanhf, erff) keep fp32 outputs accurate; no fast-math.
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

__device__ __forceinline__ float sigmoid(float x) { return 1.0f / (1.0f + expf(-x)); }

__device__ __forceinline__ float gelu_tanh(float x) {
  constexpr float kSqrt2OverPi = 0.7978845608028654f;
  constexpr float kCubic = 0.044715f;
  return 0.5f * x * (1.0f + tanhf(kSqrt2OverPi * fmaf(kCubic * x, x * x, x)));
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

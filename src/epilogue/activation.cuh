// Device side of epifuse::Activation: fp32 math on one fragment, chosen at run time.
//
// The epilogue runs once per fragment in code CUTLASS unrolls for every subtile, and in the
// cooperative kernel the tensor cores wait while it runs; so both the code size and the cost per
// element matter. Each activation is compiled on the host into one of four families with
// coefficients, and the device switches over families (four loop bodies instead of ten):
//   identity   y = x
//   piecewise  g = clamp(a·x + b, lo, hi);  y = (mul_x ? x·g, 0 where g = 0 : g) + c·min(x, 0)
//              ReLU, LeakyReLU, Clamp, HardSwish; by cases, so ±inf never meets a zero factor
//              (relu(−inf) = 0, hardswish(−inf) = 0) and NaN passes through the clamp
//   sigmoid    y = s·(p + q·x) + r,  s = σ(x·(k1 + k3·x²)), the terms with q = 0 or k3 = 0 left out
//              (so that ±inf never meets a zero coefficient: sigmoid(inf) = 1, tanh(−inf) = −1)
//              Sigmoid, SiLU, Tanh = 2σ(2x) − 1, GELU-tanh = x·σ(2u) = x/2·(1 + tanh u)
//   erf        y = x/2 · (1 + erf(x/√2))                                           GELU-erf
// σ(t) = 1/(1 + 2^(−t·log2 e)) uses the special-function unit (ex2.approx, rcp.approx: a few ulp),
// without the branches of the IEEE reciprocal. The σ form of GELU-tanh has no 1 + tanh u
// cancellation in the negative tail; tanh via σ has absolute error ~1e-7 near 0.
#pragma once

#include <cuda_runtime.h>

#include <limits>

#include "epifuse/epilogue/activation.hpp"

namespace epifuse::device {

enum class ActivationFamily : int { kIdentity, kPiecewise, kSigmoid, kErf };

struct ActivationProgram {
  ActivationFamily family = ActivationFamily::kIdentity;
  bool mul_x = false;
  float a = 1.0f, b = 0.0f, lo = 0.0f, hi = 0.0f, c = 0.0f;  // piecewise
  float k1 = 1.0f, k3 = 0.0f, p = 0.0f, q = 0.0f, r = 0.0f;                // sigmoid
};

// Host: the family and coefficients of `kind`.
inline ActivationProgram compile_activation(Activation kind, float leaky_slope, float clamp_lo, float clamp_hi) {
  constexpr float kInf = std::numeric_limits<float>::infinity();
  constexpr float kTwoSqrt2OverPi = 2.0f * 0.7978845608028654f;
  ActivationProgram pr;
  auto piecewise = [&](bool mul_x, float a, float b, float lo, float hi, float c) {
    pr.family = ActivationFamily::kPiecewise;
    pr.mul_x = mul_x, pr.a = a, pr.b = b, pr.lo = lo, pr.hi = hi, pr.c = c;
  };
  auto sigmoid = [&](float k1, float k3, float p, float q, float r) {
    pr.family = ActivationFamily::kSigmoid;
    pr.k1 = k1, pr.k3 = k3, pr.p = p, pr.q = q, pr.r = r;
  };
  switch (kind) {
    case Activation::kIdentity: break;
    case Activation::kReLU: piecewise(false, 1, 0, 0, kInf, 0); break;
    case Activation::kLeakyReLU: piecewise(false, 1, 0, 0, kInf, leaky_slope); break;
    case Activation::kClamp: piecewise(false, 1, 0, clamp_lo, clamp_hi, 0); break;
    case Activation::kHardSwish: piecewise(true, 1.0f / 6.0f, 0.5f, 0, 1, 0); break;
    case Activation::kSigmoid: sigmoid(1, 0, 1, 0, 0); break;
    case Activation::kSiLU: sigmoid(1, 0, 0, 1, 0); break;
    case Activation::kTanh: sigmoid(2, 0, 2, 0, -1); break;
    case Activation::kGeluTanh: sigmoid(kTwoSqrt2OverPi, kTwoSqrt2OverPi * 0.044715f, 0, 1, 0); break;
    case Activation::kGeluErf: pr.family = ActivationFamily::kErf; break;
  }
  return pr;
}

__device__ __forceinline__ float exp2_approx(float x) {
  float y;
  asm("ex2.approx.ftz.f32 %0, %1;" : "=f"(y) : "f"(x));
  return y;
}

__device__ __forceinline__ float rcp_approx(float x) {
  float y;
  asm("rcp.approx.ftz.f32 %0, %1;" : "=f"(y) : "f"(x));
  return y;
}

// 1/(1 + e^(−t)); saturates to 0 and 1 (rcp(inf) = 0, ex2 of very negative → 0).
__device__ __forceinline__ float sigmoid(float t) {
  constexpr float kLog2e = 1.4426950408889634f;
  return rcp_approx(1.0f + exp2_approx(-kLog2e * t));
}

__device__ __forceinline__ float gelu_tanh(float x) {
  constexpr float kTwoSqrt2OverPi = 2.0f * 0.7978845608028654f;
  return x * sigmoid(kTwoSqrt2OverPi * fmaf(0.044715f * x, x * x, x));
}

__device__ __forceinline__ float gelu_erf(float x) {
  constexpr float kInvSqrt2 = 0.7071067811865476f;
  return 0.5f * x * (1.0f + erff(x * kInvSqrt2));
}

// Applies `pr` to every element of `v` (anything with kElements and operator[] of float).
template <class Fragment>
__device__ __forceinline__ void activate(Fragment& v, const ActivationProgram& pr) {
  constexpr int kSize = static_cast<int>(Fragment::kElements);
  switch (pr.family) {
    case ActivationFamily::kIdentity:
      break;
    case ActivationFamily::kPiecewise:
#pragma unroll
      for (int i = 0; i < kSize; ++i) {
        const float x = v[i];
        const float t = fmaf(pr.a, x, pr.b);
        const float g = t < pr.lo ? pr.lo : (t > pr.hi ? pr.hi : t);  // comparisons keep NaN
        float y = pr.mul_x ? (g == 0.0f ? 0.0f : x * g) : g;
        if (pr.c != 0.0f) y = fmaf(pr.c, fminf(x, 0.0f), y);
        v[i] = y;
      }
      break;
    case ActivationFamily::kSigmoid:
#pragma unroll
      for (int i = 0; i < kSize; ++i) {
        const float x = v[i];
        const float t = pr.k3 == 0.0f ? pr.k1 * x : x * fmaf(pr.k3, x * x, pr.k1);
        const float s = sigmoid(t);
        v[i] = fmaf(s, pr.q == 0.0f ? pr.p : fmaf(pr.q, x, pr.p), pr.r);
      }
      break;
    case ActivationFamily::kErf:
#pragma unroll
      for (int i = 0; i < kSize; ++i) v[i] = gelu_erf(v[i]);
      break;
  }
}

}  // namespace epifuse::device

// Activations an epilogue can apply, chosen at run time. One line of math each; the device
// code is src/epilogue/activation.cuh and the fp64 mirror reference/activation.hpp.
// NaN in gives NaN out. The piecewise ones are defined by cases, so ±inf gives the limit of the
// case it falls in (relu(−inf) = 0, clamp(±inf) = hi / lo, hardswish(−inf) = 0), never 0·inf.
#pragma once

namespace epifuse {

enum class Activation {
  kIdentity,   // f(x) = x
  kReLU,       // f(x) = x > 0 ? x : 0
  kGeluTanh,   // f(x) = x/2 · (1 + tanh(√(2/π) · (x + 0.044715·x³)))
  kGeluErf,    // f(x) = x/2 · (1 + erf(x/√2))
  kSiLU,       // f(x) = x · σ(x),  σ(x) = 1 / (1 + e^(−x))
  kSigmoid,    // f(x) = σ(x)
  kTanh,       // f(x) = tanh(x)
  kHardSwish,  // f(x) = x ≤ −3 ? 0 : x ≥ 3 ? x : x·(x + 3)/6
  kLeakyReLU,  // f(x) = x ≥ 0 ? x : slope · x
  kClamp,      // f(x) = x < lo ? lo : x > hi ? hi : x
};

constexpr int kActivationCount = 10;

constexpr const char* to_string(Activation a) {
  switch (a) {
    case Activation::kIdentity: return "identity";
    case Activation::kReLU: return "relu";
    case Activation::kGeluTanh: return "gelu_tanh";
    case Activation::kGeluErf: return "gelu_erf";
    case Activation::kSiLU: return "silu";
    case Activation::kSigmoid: return "sigmoid";
    case Activation::kTanh: return "tanh";
    case Activation::kHardSwish: return "hardswish";
    case Activation::kLeakyReLU: return "leaky_relu";
    case Activation::kClamp: return "clamp";
  }
  return "unknown activation";
}

}  // namespace epifuse

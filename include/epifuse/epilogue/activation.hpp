// Activations an epilogue can apply, chosen at run time. One line of math each; the device
// code is src/epilogue/activation.cuh and the fp64 mirror reference/activation.hpp.
#pragma once

namespace epifuse {

enum class Activation {
  kIdentity,   // f(x) = x
  kReLU,       // f(x) = max(x, 0)
  kGeluTanh,   // f(x) = x/2 · (1 + tanh(√(2/π) · (x + 0.044715·x³)))
  kGeluErf,    // f(x) = x/2 · (1 + erf(x/√2))
  kSiLU,       // f(x) = x · σ(x),  σ(x) = 1 / (1 + e^(−x))
  kSigmoid,    // f(x) = σ(x)
  kTanh,       // f(x) = tanh(x)
  kHardSwish,  // f(x) = x · min(max(x + 3, 0), 6) / 6
  kLeakyReLU,  // f(x) = x ≥ 0 ? x : slope · x
  kClamp,      // f(x) = min(max(x, lo), hi)
};

constexpr int kActivationCount = 10;

const char* to_string(Activation a);

}  // namespace epifuse

#include "reference/activation.hpp"

#include <cmath>

namespace epifuse::reference {
namespace {

double sigmoid(double x) { return 1.0 / (1.0 + std::exp(-x)); }

}  // namespace

double activate(const ActivationParams& p, double x) {
  constexpr double kPi = 3.14159265358979323846;
  switch (p.kind) {
    case Activation::kIdentity: return x;
    case Activation::kReLU: return x > 0.0 || std::isnan(x) ? x : 0.0;
    case Activation::kGeluTanh:
      return 0.5 * x * (1.0 + std::tanh(std::sqrt(2.0 / kPi) * (x + 0.044715 * x * x * x)));
    case Activation::kGeluErf: return 0.5 * x * (1.0 + std::erf(x / std::sqrt(2.0)));
    case Activation::kSiLU: return x * sigmoid(x);
    case Activation::kSigmoid: return sigmoid(x);
    case Activation::kTanh: return std::tanh(x);
    case Activation::kHardSwish: return x <= -3.0 ? 0.0 : (x >= 3.0 ? x : x * (x + 3.0) / 6.0);
    case Activation::kLeakyReLU: return x >= 0.0 ? x : p.leaky_slope * x;
    case Activation::kClamp: return x < p.clamp_lo ? p.clamp_lo : (x > p.clamp_hi ? p.clamp_hi : x);
  }
  return x;
}

}  // namespace epifuse::reference

// fp64 mirror of src/epilogue/activation.cuh: the closed forms of epifuse::Activation, by cases
// where include/epifuse/epilogue/activation.hpp defines them so (NaN in, NaN out).
#pragma once

#include "epifuse/epilogue/activation.hpp"

namespace epifuse::reference {

struct ActivationParams {
  Activation kind = Activation::kIdentity;
  double leaky_slope = 0.0;
  double clamp_lo = 0.0;
  double clamp_hi = 0.0;
};

double activate(const ActivationParams& p, double x);

}  // namespace epifuse::reference

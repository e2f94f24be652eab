// The fp64 reference activations against tabulated values of their closed forms.
#include <cmath>
#include <limits>

#include <gtest/gtest.h>

#include "reference/activation.hpp"

namespace epifuse::reference {
namespace {

double act(Activation kind, double x) { return activate({kind, 0.1, -1.0, 1.0}, x); }

TEST(ReferenceActivation, MatchesClosedForms) {
  constexpr double kTol = 1e-15;
  EXPECT_EQ(act(Activation::kIdentity, -1.25), -1.25);
  EXPECT_EQ(act(Activation::kReLU, -2.0), 0.0);
  EXPECT_EQ(act(Activation::kReLU, 3.0), 3.0);
  // x·Φ(x): Φ(1) = 0.841344746068543 (standard normal CDF), Φ(-1) = 1 - Φ(1).
  EXPECT_NEAR(act(Activation::kGeluErf, 1.0), 0.8413447460685429, kTol);
  EXPECT_NEAR(act(Activation::kGeluErf, -1.0), -0.15865525393145707, kTol);
  EXPECT_NEAR(act(Activation::kGeluTanh, 1.0), 0.8411919906082768, kTol);
  EXPECT_NEAR(act(Activation::kGeluTanh, -0.5), -0.15428599017485606, kTol);
  // σ(1) = e/(1+e), σ(2) = 1/(1+e^-2).
  EXPECT_NEAR(act(Activation::kSiLU, 1.0), 0.7310585786300049, kTol);
  EXPECT_NEAR(act(Activation::kSiLU, -2.0), -0.2384058440442351, kTol);
  EXPECT_EQ(act(Activation::kSigmoid, 0.0), 0.5);
  EXPECT_NEAR(act(Activation::kSigmoid, 2.0), 0.8807970779778823, kTol);
  EXPECT_NEAR(act(Activation::kTanh, 0.5), 0.46211715726000974, kTol);
  EXPECT_NEAR(act(Activation::kHardSwish, 1.0), 4.0 / 6.0, kTol);
  EXPECT_EQ(act(Activation::kHardSwish, -4.0), 0.0);
  EXPECT_EQ(act(Activation::kHardSwish, 4.0), 4.0);
  EXPECT_NEAR(act(Activation::kLeakyReLU, -2.0), -0.2, kTol);
  EXPECT_EQ(act(Activation::kLeakyReLU, 2.0), 2.0);
  EXPECT_EQ(act(Activation::kClamp, 2.0), 1.0);
  EXPECT_EQ(act(Activation::kClamp, -3.0), -1.0);
  EXPECT_EQ(act(Activation::kClamp, 0.25), 0.25);
}

TEST(ReferenceActivation, LimitsAreFinite) {
  for (int k = 0; k < kActivationCount; ++k) {
    for (double x : {-80.0, -1e-8, 0.0, 1e-8, 80.0}) {
      EXPECT_TRUE(std::isfinite(act(static_cast<Activation>(k), x))) << to_string(static_cast<Activation>(k)) << " at " << x;
    }
  }
}

// The piecewise activations are defined by cases: ±inf lands in its case, never a 0·inf; NaN stays NaN.
TEST(ReferenceActivation, InfinitiesAndNaN) {
  constexpr double kInf = std::numeric_limits<double>::infinity();
  EXPECT_EQ(act(Activation::kReLU, -kInf), 0.0);
  EXPECT_EQ(act(Activation::kReLU, kInf), kInf);
  EXPECT_EQ(act(Activation::kLeakyReLU, -kInf), -kInf);
  EXPECT_EQ(act(Activation::kLeakyReLU, kInf), kInf);
  EXPECT_EQ(act(Activation::kClamp, -kInf), -1.0);
  EXPECT_EQ(act(Activation::kClamp, kInf), 1.0);
  EXPECT_EQ(act(Activation::kHardSwish, -kInf), 0.0);
  EXPECT_EQ(act(Activation::kHardSwish, kInf), kInf);
  EXPECT_EQ(act(Activation::kSigmoid, -kInf), 0.0);
  EXPECT_EQ(act(Activation::kTanh, kInf), 1.0);
  EXPECT_EQ(act(Activation::kGeluTanh, kInf), kInf);
  for (int k = 0; k < kActivationCount; ++k) {
    EXPECT_TRUE(std::isnan(act(static_cast<Activation>(k), std::nan("")))) << to_string(static_cast<Activation>(k));
  }
}

}  // namespace
}  // namespace epifuse::reference

// Each epilogue feature alone, then combinations, on a ragged shape (M, N, K off every tile) and
// on small-M shapes that take the swapped kernels (37 tokens: the 128x32 one for bias + activation
// at most). Every feature also runs with fp32 output: there the one-rounding rule's allowance is
// a few fp32 ulps, so a wrong activation variant or an early rounding shows
// (testing/tolerances.hpp). ±inf and NaN go through bias and residual.
#include <vector>

#include "tests/gpu/gpu_test.hpp"

namespace epifuse::testing {
namespace {

class EpilogueTest : public ::testing::TestWithParam<GemmCase> {
 protected:
  void SetUp() override { EPIFUSE_REQUIRE_HOPPER(); }
};

TEST_P(EpilogueTest, MatchesReference) { expect_case_passes(GetParam()); }

GemmCase ragged(EpilogueSpec e, std::int64_t M = 333, DType output = DType::kBF16) {
  return {M, 1000, 520, DType::kBF16, output, 0, 0, e};
}

std::vector<EpilogueSpec> single_features() {
  std::vector<EpilogueSpec> specs;
  specs.push_back({});
  specs.push_back({.alpha = true});
  specs.push_back({.row_scale = true});
  specs.push_back({.col_scale = true});
  specs.push_back({.col_bias = true});
  specs.push_back({.row_bias = true});
  for (int k = 1; k < kActivationCount; ++k) specs.push_back({.activation = static_cast<Activation>(k)});
  specs.push_back({.residual = Residual::kAfterActivation});
  specs.push_back({.residual = Residual::kBeforeActivation});
  specs.push_back({.residual = Residual::kInPlace});
  for (unsigned flag : {kRowSum, kRowAmax, kColSum, kColAmax, kAmax}) specs.push_back({.reductions = flag});
  return specs;
}

std::vector<EpilogueSpec> combinations() {
  return {
      // The two seed chains: relu(alpha·acc + bias) → bf16, and alpha·acc + beta·C.
      {.alpha = true, .col_bias = true, .activation = Activation::kReLU},
      {.alpha = true, .residual = Residual::kAfterActivation},
      {.col_bias = true, .activation = Activation::kGeluTanh},
      {.col_bias = true, .activation = Activation::kGeluErf, .residual = Residual::kAfterActivation},
      {.col_scale = true, .col_bias = true, .activation = Activation::kSiLU},
      {.row_scale = true, .col_scale = true, .activation = Activation::kIdentity},  // per-token × per-channel dequant
      {.row_scale = true, .col_scale = true, .col_bias = true, .activation = Activation::kGeluTanh},
      {.alpha = true, .col_bias = true, .row_bias = true, .activation = Activation::kSigmoid},
      {.alpha = true, .activation = Activation::kTanh, .residual = Residual::kBeforeActivation},
      {.col_bias = true, .activation = Activation::kHardSwish, .residual = Residual::kInPlace},
      {.row_scale = true, .activation = Activation::kLeakyReLU, .residual = Residual::kAfterActivation},
      {.col_scale = true, .row_bias = true, .activation = Activation::kClamp, .residual = Residual::kBeforeActivation},
      {.alpha = true, .row_scale = true, .col_scale = true, .col_bias = true, .row_bias = true,
       .activation = Activation::kGeluErf, .residual = Residual::kAfterActivation},
      {.col_bias = true, .activation = Activation::kSiLU, .reductions = kRowAmax | kAmax},
      {.alpha = true, .col_scale = true, .col_bias = true, .activation = Activation::kGeluTanh,
       .residual = Residual::kAfterActivation, .reductions = kAllReductions},
      {.row_scale = true, .activation = Activation::kReLU, .reductions = kColSum | kColAmax},
  };
}

std::vector<GemmCase> cases() {
  std::vector<GemmCase> out;
  for (const EpilogueSpec& e : single_features()) {
    out.push_back(ragged(e));
    out.push_back(ragged(e, 37));
  }
  for (const EpilogueSpec& e : combinations()) {
    out.push_back(ragged(e));
    out.push_back(ragged(e, 7));  // small M: swapped kernels (or the reducing kernel)
  }
  return out;
}
INSTANTIATE_TEST_SUITE_P(Bf16, EpilogueTest, ::testing::ValuesIn(cases()), param_name<GemmCase>);

// The fp32-output twins: every feature, on the large-M and the swapped kernel.
std::vector<GemmCase> fp32_twins() {
  std::vector<GemmCase> out;
  for (const EpilogueSpec& e : single_features()) {
    out.push_back(ragged(e, 333, DType::kFP32));
    out.push_back(ragged(e, 7, DType::kFP32));
  }
  return out;
}
INSTANTIATE_TEST_SUITE_P(Fp32Output, EpilogueTest, ::testing::ValuesIn(fp32_twins()), param_name<GemmCase>);

// ±inf and NaN in the bias (columns 0-2) and the residual, through every activation, on the
// narrow bias + activation kernels (no residual; 333 and 37 tokens) and the full one: outputs
// match the reference's NaN and infinities exactly (relu(−inf) = 0, never 0·inf).
std::vector<GemmCase> special_values() {
  std::vector<GemmCase> out;
  for (int k = 0; k < kActivationCount; ++k) {
    const auto act = static_cast<Activation>(k);
    const std::pair<Residual, std::int64_t> variants[] = {
        {Residual::kNone, 333}, {Residual::kAfterActivation, 333}, {Residual::kBeforeActivation, 333},
        {Residual::kAfterActivation, 7}, {Residual::kNone, 37}};
    for (auto [r, M] : variants) {
      GemmCase c = ragged({.col_bias = true, .activation = act, .residual = r}, M);
      c.special_values = true;
      out.push_back(c);
    }
  }
  // With fp32 output cuBLASLt takes the fp32 bias: these run delegated.
  for (Activation act : {Activation::kIdentity, Activation::kReLU, Activation::kGeluTanh}) {
    for (Residual r : {Residual::kNone, Residual::kBeforeActivation}) {
      GemmCase c = ragged({.col_bias = true, .activation = act, .residual = r}, 333, DType::kFP32);
      c.special_values = true;
      out.push_back(c);
    }
  }
  return out;
}
INSTANTIATE_TEST_SUITE_P(SpecialValues, EpilogueTest, ::testing::ValuesIn(special_values()), param_name<GemmCase>);

}  // namespace
}  // namespace epifuse::testing

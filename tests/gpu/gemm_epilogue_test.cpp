// Each epilogue feature alone, then combinations, on a ragged shape (M, N, K off every tile) and
// on a small-M shape that takes the swapped kernels.
#include <vector>

#include "tests/gpu/gpu_test.hpp"

namespace epifuse::testing {
namespace {

class EpilogueTest : public ::testing::TestWithParam<GemmCase> {
 protected:
  void SetUp() override { EPIFUSE_REQUIRE_HOPPER(); }
};

TEST_P(EpilogueTest, MatchesReference) { expect_case_passes(GetParam()); }

GemmCase ragged(EpilogueSpec e, std::int64_t M = 333) { return {M, 1000, 520, DType::kBF16, DType::kBF16, 0, 0, e}; }

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
  for (const EpilogueSpec& e : single_features()) out.push_back(ragged(e));
  for (const EpilogueSpec& e : combinations()) {
    out.push_back(ragged(e));
    out.push_back(ragged(e, 7));  // small M: swapped kernels (or the reducing kernel)
  }
  return out;
}

INSTANTIATE_TEST_SUITE_P(Bf16, EpilogueTest, ::testing::ValuesIn(cases()), param_name);

}  // namespace
}  // namespace epifuse::testing

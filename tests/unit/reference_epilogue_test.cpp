// The fp64 reference GEMM, epilogue nodes, unfused path and reductions on hand-computed cases.
#include <cmath>

#include <gtest/gtest.h>

#include "reference/gemm.hpp"
#include "reference/numeric.hpp"

namespace epifuse::reference {
namespace {

TEST(ReferenceGemm, SmallProduct) {
  // A [2,3] (lda 4, padded), B [2,3]: acc = A·Bᵀ.
  const float a[] = {1, 2, 3, 99, -1, 0.5f, 2, 99};
  const float b[] = {1, 0, -1, 2, 1, 0.25f};
  const std::vector<double> acc = gemm_rows({2, 2, 3, a, 4, b, 3}, {0, 1});
  EXPECT_DOUBLE_EQ(acc[0], 1 - 3);
  EXPECT_DOUBLE_EQ(acc[1], 2 + 2 + 0.75);
  EXPECT_DOUBLE_EQ(acc[2], -1 - 2);
  EXPECT_DOUBLE_EQ(acc[3], -2 + 0.5 + 0.5);
  // Cells: row 1, column 0 alone.
  EXPECT_DOUBLE_EQ(gemm_cells({2, 2, 3, a, 4, b, 3}, {{1}, {0}})[0], -1 - 2);
}

TEST(ReferenceEpilogue, LinearActivationComposesInDocumentedOrder) {
  const float row_scale[] = {2.0f};
  const float col_scale[] = {0.5f, 3.0f};
  const float col_bias[] = {1.0f, -1.0f};
  const float row_bias[] = {0.25f};
  const float c[] = {4.0f, 8.0f};
  EpilogueOperands e;
  e.alpha = 0.5;
  e.row_scale = row_scale;
  e.col_scale = col_scale;
  e.col_bias = col_bias;
  e.row_bias = row_bias;
  e.activation.kind = Activation::kReLU;
  e.residual = c;
  e.ldc = 2;
  e.beta = -0.5;
  // z = 0.5·2·3·acc − 1 + 0.25 at n = 1, acc = 1: z = 2.25; relu(z) − 0.5·8 = −1.75.
  EXPECT_DOUBLE_EQ(linear_activation(e, 0, 1, 1.0), -1.75);
  // Residual before the activation: relu(2.25 − 4) = 0.
  e.residual_order = ResidualOrder::kBeforeActivation;
  EXPECT_DOUBLE_EQ(linear_activation(e, 0, 1, 1.0), 0.0);
  // Absent operands are neutral: z = acc.
  EXPECT_DOUBLE_EQ(linear_activation(EpilogueOperands{}, 3, 7, -2.5), -2.5);
}

TEST(ReferenceEpilogue, UnfusedPathRoundsAfterEveryOp) {
  const float col_bias[] = {1.0f};
  EpilogueOperands e;
  e.col_bias = col_bias;
  // GEMM result 1 + 2^-10 rounds to 1 in bf16; + 1 = 2 exactly. Fused: 2 + 2^-10.
  const std::vector<double> acc = {1.0 + 1.0 / 1024};
  const Cells one{{0}, {0}};
  EXPECT_DOUBLE_EQ(unfused_cells(e, DType::kBF16, one, acc)[0], 2.0);
  EXPECT_DOUBLE_EQ(fused_cells(e, one, acc)[0], 2.0 + 1.0 / 1024);
}

TEST(ReferenceEpilogue, Reductions) {
  const std::vector<double> y = {1, -4, 2, 0.5, 3, -1};  // [2, 3]
  const Reductions r = reduce(y, 2, 3);
  EXPECT_DOUBLE_EQ(r.row_sum[0], -1);
  EXPECT_DOUBLE_EQ(r.row_sum[1], 2.5);
  EXPECT_DOUBLE_EQ(r.row_amax[0], 4);
  EXPECT_DOUBLE_EQ(r.row_amax[1], 3);
  EXPECT_DOUBLE_EQ(r.col_sum[1], -1);
  EXPECT_DOUBLE_EQ(r.col_amax[2], 2);
  EXPECT_DOUBLE_EQ(r.amax, 4);
  EXPECT_DOUBLE_EQ(r.row_abs_sum[0], 7);
}

TEST(ReferenceNumeric, RoundsToNearestEven) {
  EXPECT_EQ(float_to_bf16(1.0f), 0x3F80);
  EXPECT_EQ(float_to_bf16(1.0f + 1.0f / 256), 0x3F80);      // tie, even stays
  EXPECT_EQ(float_to_bf16(1.0f + 3.0f / 256), 0x3F82);      // tie, odd rounds up
  EXPECT_EQ(float_to_bf16(1.0f + 1.5f / 256), 0x3F81);      // above the tie
  EXPECT_EQ(bf16_to_float(0xC040), -3.0f);
  EXPECT_TRUE(std::isnan(bf16_to_float(float_to_bf16(NAN))));
  EXPECT_EQ(float_to_fp16(1.0f), 0x3C00);
  EXPECT_EQ(fp16_to_float(0xC200), -3.0f);
  EXPECT_EQ(round_to(DType::kFP16, 1.0 + 1.0 / 4096), 1.0f);  // below fp16's half-ulp
  EXPECT_EQ(round_to(DType::kFP32, 0.1), 0.1f);
}

}  // namespace
}  // namespace epifuse::reference

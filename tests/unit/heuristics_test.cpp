// Kernel choice per shape class and the rules for forcing a kernel. CPU only: choosing reads the
// kernel registry and launch defaults, never the GPU.
#include <string>

#include <gtest/gtest.h>

#include "dispatch/sm90_heuristics.hpp"

namespace epifuse::detail {
namespace {

sm90::LaunchConfig h100_like() {
  sm90::LaunchConfig c;
  c.sm_count = 132;
  return c;
}

GemmArgs shape(std::int64_t M, std::int64_t N, std::int64_t K, DType in = DType::kBF16, DType out = DType::kBF16) {
  GemmArgs a;
  a.M = M;
  a.N = N;
  a.K = K;
  a.input_dtype = in;
  a.output_dtype = out;
  return a;
}

std::string chosen(const GemmArgs& a) {
  Sm90Choice choice;
  const Status s = choose_sm90_gemm(a, h100_like(), &choice);
  EXPECT_TRUE(s.ok()) << s.to_string();
  return s.ok() ? choice.kernel->info.name : s.to_string();
}

TEST(Heuristics, NarrowestEpilogueThatCovers) {
  GemmArgs a = shape(4096, 28672, 8192);
  EXPECT_EQ(chosen(a), "sm90_bf16_bf16_coop_128x256x64_c2x1_cast_noc");
  a.epilogue.col_bias = reinterpret_cast<const float*>(0x1000);
  a.epilogue.activation = Activation::kGeluTanh;
  a.epilogue.alpha = 0.5f;
  EXPECT_EQ(chosen(a), "sm90_bf16_bf16_coop_128x256x64_c2x1_biasact_noc");
  a.epilogue.row_scale = reinterpret_cast<const float*>(0x2000);
  EXPECT_EQ(chosen(a), "sm90_bf16_bf16_coop_128x256x64_c2x1_noc");
  EXPECT_EQ(required_coverage(a.epilogue), EpilogueCoverage::kFull);
  a.epilogue.col_amax = reinterpret_cast<float*>(0x3000);
  EXPECT_EQ(required_coverage(a.epilogue), EpilogueCoverage::kFullWithColumnReductions);
}

TEST(Heuristics, PicksByShapeClass) {
  EXPECT_EQ(chosen(shape(1, 28672, 8192)), "sm90_bf16_bf16_swap_coop_128x64x128_c1x1");
  EXPECT_EQ(chosen(shape(64, 28672, 8192)), "sm90_bf16_bf16_swap_coop_128x64x128_c1x1");
  EXPECT_EQ(chosen(shape(128, 28672, 8192)), "sm90_bf16_bf16_coop_128x256x64_c1x2");
  EXPECT_EQ(chosen(shape(4096, 28672, 8192)), "sm90_bf16_bf16_coop_128x256x64_c2x1_cast_noc");
}

TEST(Heuristics, ResidualNeedsAKernelWithC) {
  GemmArgs a = shape(4096, 28672, 8192);
  a.epilogue.residual = reinterpret_cast<void*>(0x1000);
  a.epilogue.ldc = 28672;
  EXPECT_EQ(chosen(a), "sm90_bf16_bf16_coop_128x256x64_c2x1");
  a.M = 7;
  EXPECT_EQ(chosen(a), "sm90_bf16_bf16_swap_coop_128x64x128_c1x1");
}

TEST(Heuristics, ColumnReductionsTakeTheirKernel) {
  GemmArgs a = shape(4096, 28672, 8192);
  a.epilogue.amax = reinterpret_cast<float*>(0x1000);
  a.epilogue.row_amax = reinterpret_cast<float*>(0x2000);
  EXPECT_EQ(chosen(a), "sm90_bf16_bf16_coop_128x256x64_c2x1_noc") << "amax and row reductions run in every kernel";
  a.epilogue.col_sum = reinterpret_cast<float*>(0x3000);
  EXPECT_EQ(chosen(a), "sm90_bf16_bf16_coop_128x128x64_c1x1_colreduce");
}

TEST(Heuristics, EveryDtypePairHasAKernelForEveryShapeClass) {
  const std::pair<DType, DType> pairs[] = {{DType::kBF16, DType::kBF16},
                                           {DType::kBF16, DType::kFP32},
                                           {DType::kFP16, DType::kFP16},
                                           {DType::kFP16, DType::kFP32}};
  for (auto [in, out] : pairs) {
    for (std::int64_t M : {1, 100, 200, 5000}) {
      GemmArgs a = shape(M, 1024, 1024, in, out);
      Sm90Choice choice;
      ASSERT_TRUE(choose_sm90_gemm(a, h100_like(), &choice).ok()) << to_string(in) << "->" << to_string(out) << " M=" << M;
      EXPECT_EQ(choice.kernel->info.input_dtype, in);
      EXPECT_EQ(choice.kernel->info.output_dtype, out);
      a.epilogue.residual = reinterpret_cast<void*>(0x2000);
      a.epilogue.ldc = 1024;
      ASSERT_TRUE(choose_sm90_gemm(a, h100_like(), &choice).ok());
      EXPECT_TRUE(choice.kernel->info.residual);
      a.epilogue.col_amax = reinterpret_cast<float*>(0x1000);
      ASSERT_TRUE(choose_sm90_gemm(a, h100_like(), &choice).ok());
      EXPECT_EQ(choice.kernel->info.coverage, EpilogueCoverage::kFullWithColumnReductions);
    }
  }
}

TEST(Heuristics, ForcedKernelMustFit) {
  Sm90Choice choice;
  GemmArgs a = shape(4096, 1024, 1024);
  a.kernel = "sm90_bf16_bf16_coop_128x256x64_c2x1";
  EXPECT_TRUE(choose_sm90_gemm(a, h100_like(), &choice).ok());
  EXPECT_EQ(choice.kernel->info.name, a.kernel);

  a.kernel = "no_such_kernel";
  EXPECT_EQ(choose_sm90_gemm(a, h100_like(), &choice).code(), StatusCode::kInvalidArgument);
  a.kernel = "sm90_fp16_fp16_swap_coop_128x64x128_c1x1";
  EXPECT_EQ(choose_sm90_gemm(a, h100_like(), &choice).code(), StatusCode::kInvalidArgument);
  a.kernel = "sm90_bf16_bf16_coop_128x256x64_c2x1_noc";
  a.epilogue.residual = reinterpret_cast<void*>(0x2000);
  a.epilogue.ldc = 1024;
  EXPECT_EQ(choose_sm90_gemm(a, h100_like(), &choice).code(), StatusCode::kInvalidArgument);
  a.epilogue.residual = nullptr;
  a.kernel = "sm90_bf16_bf16_coop_128x256x64_c2x1";
  a.epilogue.col_sum = reinterpret_cast<float*>(0x1000);
  const Status s = choose_sm90_gemm(a, h100_like(), &choice);
  EXPECT_EQ(s.code(), StatusCode::kInvalidArgument);
  EXPECT_NE(s.message().find("needs full_with_column_reductions"), std::string::npos) << s.message();
}

TEST(Heuristics, KernelListIsConsistent) {
  for (const GemmKernelInfo& k : gemm_kernels()) {
    EXPECT_EQ(k.name.rfind("sm90_", 0), 0u) << k.name;
    EXPECT_EQ(k.name.find("_swap_") != std::string::npos, k.swap_ab) << k.name;
    EXPECT_EQ(k.name.find("_colreduce") != std::string::npos,
              k.coverage == EpilogueCoverage::kFullWithColumnReductions)
        << k.name;
    EXPECT_EQ(k.name.find("_noc") == std::string::npos, k.residual) << k.name;
    EXPECT_GT(k.tile_m * k.tile_n * k.tile_k, 0) << k.name;
  }
}

}  // namespace
}  // namespace epifuse::detail

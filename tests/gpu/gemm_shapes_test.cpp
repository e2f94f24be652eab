// Every shape of M ∈ {1, 7, 333, 4096} × N ∈ {768, 1000, 28672} × K ∈ {64, 520, 8192}, plain and
// with a rich epilogue; then strided operands, other dtypes, and every compiled kernel (stream-K
// ones also over a deep K loop, the warp-mma decode kernels with each K-loop share).
#include <vector>

#include "epifuse/tuning.hpp"
#include "tests/gpu/gpu_test.hpp"

namespace epifuse::testing {
namespace {

class ShapeTest : public ::testing::TestWithParam<GemmCase> {
 protected:
  void SetUp() override { EPIFUSE_REQUIRE_HOPPER(); }
};

TEST_P(ShapeTest, MatchesReference) { expect_case_passes(GetParam()); }

const EpilogueSpec kRich = {.alpha = true, .col_bias = true, .activation = Activation::kSiLU,
                            .residual = Residual::kAfterActivation};

std::vector<GemmCase> shape_grid() {
  std::vector<GemmCase> out;
  for (std::int64_t M : {1, 7, 333, 4096}) {
    for (std::int64_t N : {768, 1000, 28672}) {
      for (std::int64_t K : {64, 520, 8192}) {
        out.push_back({M, N, K, DType::kBF16, DType::kBF16, 0, 0, {}});
        out.push_back({M, N, K, DType::kBF16, DType::kBF16, 0, 0, kRich});
      }
    }
  }
  return out;
}
INSTANTIATE_TEST_SUITE_P(Grid, ShapeTest, ::testing::ValuesIn(shape_grid()), param_name<GemmCase>);

std::vector<GemmCase> strided() {
  const EpilogueSpec e = {.col_bias = true, .activation = Activation::kGeluTanh, .residual = Residual::kAfterActivation};
  return {
      {333, 1000, 520, DType::kBF16, DType::kBF16, 24, 0, e},   // lda > K
      {333, 1000, 520, DType::kBF16, DType::kBF16, 0, 40, e},   // ldd = ldc > N: padding untouched
      {7, 1000, 520, DType::kBF16, DType::kBF16, 64, 24, e},    // both, swapped kernel
      {4096, 768, 64, DType::kBF16, DType::kFP32, 8, 4, e},
  };
}
INSTANTIATE_TEST_SUITE_P(Strided, ShapeTest, ::testing::ValuesIn(strided()), param_name<GemmCase>);

std::vector<GemmCase> dtypes() {
  const EpilogueSpec e = {.alpha = true, .col_scale = true, .col_bias = true, .activation = Activation::kGeluErf,
                          .residual = Residual::kAfterActivation};
  const EpilogueSpec r = {.col_bias = true, .activation = Activation::kSiLU, .reductions = kAllReductions};
  std::vector<GemmCase> out;
  for (auto [in, o] : {std::pair{DType::kFP16, DType::kFP16}, std::pair{DType::kBF16, DType::kFP32},
                       std::pair{DType::kFP16, DType::kFP32}}) {
    for (std::int64_t M : {7, 333, 4096}) out.push_back({M, 1000, 520, in, o, 0, 0, e});
    out.push_back({333, 1000, 520, in, o, 0, 0, r});
  }
  return out;
}
INSTANTIATE_TEST_SUITE_P(Dtypes, ShapeTest, ::testing::ValuesIn(dtypes()), param_name<GemmCase>);

// Every compiled kernel forced on a ragged shape, with everything it supports switched on.
std::vector<GemmCase> every_kernel() {
  std::vector<GemmCase> out;
  for (const KernelKey& k : compiled_kernels(Op::kGemm)) {
    if (k.grouping != Grouping::kNone) continue;  // grouped_gemm_test.cpp
    EpilogueSpec e;
    switch (k.epilogue) {
      case EpilogueCoverage::kCastOnly:
        break;
      case EpilogueCoverage::kBiasActivation:
        e = {.alpha = true, .col_bias = true, .activation = Activation::kGeluTanh};
        break;
      case EpilogueCoverage::kFull:
      case EpilogueCoverage::kFullWithColumnReductions:
        e = {.alpha = true, .row_scale = true, .col_scale = true, .col_bias = true, .row_bias = true,
             .activation = Activation::kGeluTanh, .residual = Residual::kAfterActivation};
        e.reductions = k.epilogue == EpilogueCoverage::kFull ? kRowSum | kRowAmax | kAmax : kAllReductions;
        break;
      case EpilogueCoverage::kGatedPair: continue;
    }
    if (!k.has_c) e.residual = Residual::kNone;
    if (k.schedule == Schedule::kWarpMma) {
      // Up to 8 tokens, or 16 in two token tiles (the second one partial or whole), and the
      // 16-token kernel's rows of 16 tokens up to 64 (the last row partial or whole); N = 1000
      // leaves the last block of 16 weight rows half out of bounds. Its cluster shares of the K
      // loop over a deep one (and its wide CTAs without a cluster there), a column past 2^31
      // bytes of weight in gemm_behavior_test.cpp.
      const std::int64_t tokens = k.tile.n;
      const std::vector<std::int64_t> token_counts =
          tokens == 8 ? std::vector<std::int64_t>{1, 5, 8} : std::vector<std::int64_t>{1, 9, 13, 16, 17, 37, 64};
      for (std::int64_t M : token_counts) out.push_back({M, 1000, 520, k.a, k.d, 0, 0, e, name(k)});
      for (int splits : {1, 2, 4, 8}) {
        for (std::int64_t M : tokens == 8 ? std::vector<std::int64_t>{7} : std::vector<std::int64_t>{15, 45}) {
          GemmCase shared{M, 1000, 8200, k.a, k.d, 0, 0, e, name(k)};
          shared.splits = splits;
          out.push_back(shared);
        }
      }
      GemmCase plain{max_tokens(k), 4096, 4096, k.a, k.d, 24, 8, {}, name(k)};  // lda and ldd padded
      out.push_back(plain);
      // Up to 16 tokens on weights of at least 24 MiB and 64 blocks a CTA holds two blocks: 8
      // warps within two CTAs per SM (here 33 CTAs per share), 4 past them (532 CTAs);
      // 65 and 1063 blocks leave the last CTA's second block past N.
      if (tokens == 16) {
        for (int splits : {1, 2, 4, 8}) {
          GemmCase pairs{15, 1040, 16384, k.a, k.d, 0, 0, e, name(k)};
          pairs.splits = splits;
          out.push_back(pairs);
        }
        out.push_back({13, 17000, 1024, k.a, k.d, 0, 0, e, name(k)});
      }
      continue;
    }
    for (std::int64_t M : {1, 333}) out.push_back({M, 1000, 520, k.a, k.d, 0, 0, e, name(k)});
    // A deep K loop over few tiles: stream-K splits it over CTAs and reduces through the workspace.
    if (k.decomposition == Decomposition::kStreamK) {
      for (std::int64_t M : {1, 129}) out.push_back({M, 1000, 8192, k.a, k.d, 0, 0, e, name(k)});
      // Its share-tail mode (CUTLASS's StreamK): here 96 tiles of 128x128 make one wave 73 % full,
      // which the heuristic mode runs whole; 176 swapped 128x64 tiles share their last two waves.
      GemmCase share_tail{701, 2000, 4096, k.a, k.d, 0, 0, e, name(k)};
      share_tail.stream_k = StreamKMode::kShareTail;
      out.push_back(share_tail);
    }
  }
  return out;
}
INSTANTIATE_TEST_SUITE_P(EveryKernel, ShapeTest, ::testing::ValuesIn(every_kernel()), param_name<GemmCase>);

}  // namespace
}  // namespace epifuse::testing

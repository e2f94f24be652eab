// Bias + activation epilogues cuBLASLt cannot fuse (an fp32 bias with a 16-bit D, activations it
// lacks), on calls dispatch delegates to cuBLASLt's fp32 product + epifuse's bias + activation
// kernel: one rounding like the fused kernels (the forced own kernel passes the same check), N
// off the 128-row tile and a padded D, a 16-bit bias, fp16, a workspace too small for the
// product, a CUDA graph.
#include <cstdint>
#include <optional>
#include <vector>

#include <cuda_runtime_api.h>

#include "epifuse/tuning.hpp"
#include "tests/gpu/gpu_test.hpp"

namespace epifuse::testing {
namespace {

class GemmBiasActDelegation : public ::testing::Test {
 protected:
  void SetUp() override { EPIFUSE_REQUIRE_HOPPER(); }
};

std::optional<KernelChoice> delegated_choice(const GemmArgs& args, bool* delegated) {
  std::optional<KernelChoice> choice;
  EXPECT_TRUE(selected_kernel(args, nullptr, &choice, delegated).ok());
  return choice;
}

// Few 128x32 tiles at 17-64 tokens: 3 tiles of a long K, 3 x 2 tiles of N off the tile with D
// padded, 8 x 2 tiles of 64 tokens; 134 whole tiles at 5 tokens, just past one wave; 100 tokens
// of a short K and 301 of K 1536, N off the tile, D padded (bf16 for the last three).
TEST_F(GemmBiasActDelegation, DelegatedCallsRoundOnceAsTheOwnKernels) {
  struct Shape {
    std::int64_t M, N, K, ldd_pad;
  };
  const Activation activations[] = {Activation::kGeluTanh, Activation::kSiLU, Activation::kGeluErf,
                                    Activation::kIdentity};
  for (const Shape s : {Shape{26, 320, 30208, 0}, Shape{33, 328, 20480, 8}, Shape{64, 1000, 4160, 0},
                        Shape{5, 17088, 1040, 0}, Shape{100, 1000, 448, 0}, Shape{301, 1040, 1536, 8}}) {
    for (DType t : {DType::kBF16, DType::kFP16}) {
      for (Activation act : activations) {
        if (t == DType::kFP16 && (act != Activation::kGeluTanh || s.M <= 8 || s.M > 64)) continue;
        GemmCase c = {s.M, s.N, s.K, t, t, 0, s.ldd_pad, {.alpha = true, .col_bias = true, .activation = act}};
        GemmProblem p(c, case_seed(c.name()));
        bool delegated = false;
        const std::optional<KernelChoice> choice = delegated_choice(p.args(), &delegated);
        ASSERT_TRUE(choice.has_value()) << c.name();
        EXPECT_TRUE(delegated) << c.name();
        const CheckReport r = run_and_check(p);
        EXPECT_TRUE(r.passed) << r.text;

        GemmCase forced = c;
        forced.kernel = name(choice->key);
        forced.splits = choice->splits;
        GemmProblem q(forced, case_seed(c.name()));
        const CheckReport own = run_and_check(q);
        EXPECT_TRUE(own.passed) << own.text;
      }
    }
  }
}

// A bias in D's type with an activation cuBLASLt lacks: the bias + activation kernel reads it as
// it is (no widened copy).
TEST_F(GemmBiasActDelegation, SixteenBitBias) {
  for (DType t : {DType::kBF16, DType::kFP16}) {
    GemmCase c = {40, 448, 16384, t, t, 0, 0, {.col_bias = true, .activation = Activation::kSiLU}};
    c.epilogue.col_bias_dtype = t;
    GemmProblem p(c, case_seed(c.name()));
    bool delegated = false;
    delegated_choice(p.args(), &delegated);
    EXPECT_TRUE(delegated) << c.name();
    const CheckReport r = run_and_check(p);
    EXPECT_TRUE(r.passed) << r.text;
  }
}

// Given less workspace than the fp32 product, the call runs epifuse's own kernel.
TEST_F(GemmBiasActDelegation, NoRoomForTheProductRunsOwnKernel) {
  GemmCase c = {26, 320, 30208, DType::kBF16, DType::kBF16, 0, 0,
                {.col_bias = true, .activation = Activation::kGeluTanh}};
  GemmProblem p(c, case_seed(c.name()));
  GemmArgs small = p.args();
  small.workspace_bytes = 26 * 320 * sizeof(float) - 1;
  bool delegated = true;
  delegated_choice(small, &delegated);
  EXPECT_FALSE(delegated);
  p.poison_outputs();
  const Status s = gemm(small, nullptr);
  ASSERT_TRUE(s.ok()) << s.to_string();
  EPIFUSE_CHECK_CUDA(cudaDeviceSynchronize());
  const CheckReport r = check_external_output(p, reference_accumulators(p), p.d().data(), p.ldd(), DType::kBF16,
                                              c.epilogue, Judge::kFused);
  EXPECT_TRUE(r.passed) << r.text;
}

// The product and the bias + activation kernel captured in one graph, replayed twice on
// re-poisoned outputs and workspace.
TEST_F(GemmBiasActDelegation, InsideGraphCapture) {
  GemmCase c = {33, 328, 20480, DType::kBF16, DType::kBF16, 0, 0,
                {.alpha = true, .col_bias = true, .activation = Activation::kGeluTanh}};
  GemmProblem p(c, case_seed(c.name()));
  expect_gemm_graph_replays_pass(p);
}

}  // namespace
}  // namespace epifuse::testing

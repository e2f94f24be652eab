// A column bias in D's 16-bit type (what a bf16 or fp16 nn.Linear holds): cuBLASLt runs the
// epilogues it computes, epifuse's own kernels read an fp32 copy widened into the workspace, and
// both pass the one-rounding check; a bias off 16 bytes, a workspace too small for the copy and
// a CUDA graph around the widening; every 16-bit pattern widened exactly.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <vector>

#include <cuda_runtime_api.h>

#include "epifuse/tuning.hpp"
#include "kernels/widen_bias.hpp"
#include "reference/numeric.hpp"
#include "tests/gpu/gpu_test.hpp"

namespace epifuse::testing {
namespace {

class GemmBiasDtype : public ::testing::Test {
 protected:
  void SetUp() override { EPIFUSE_REQUIRE_HOPPER(); }
};

bool delegated_call(const GemmArgs& args) {
  std::optional<KernelChoice> choice;
  bool delegated = false;
  EXPECT_TRUE(selected_kernel(args, nullptr, &choice, &delegated).ok());
  return delegated;
}

// Widening is exact for every 16-bit pattern (subnormals, the largest finite values, ±inf and
// NaN), over more elements than one pass of the widening's grid covers.
TEST_F(GemmBiasDtype, WideningIsExactForEveryPattern) {
  constexpr std::int64_t kPatterns = 1 << 16, kCopies = 5;
  std::vector<std::uint16_t> host(kPatterns * kCopies);
  for (std::int64_t i = 0; i < kPatterns * kCopies; ++i) host[i] = static_cast<std::uint16_t>(i % kPatterns);
  DeviceBuffer narrow(host.size() * 2), wide(host.size() * sizeof(float));
  narrow.upload(host.data(), narrow.bytes());
  for (DType t : {DType::kBF16, DType::kFP16}) {
    ASSERT_TRUE(detail::widen_bias(narrow.data(), t, static_cast<std::int64_t>(host.size()), wide.as<float>(), nullptr).ok());
    std::vector<float> got(host.size());
    EPIFUSE_CHECK_CUDA(cudaMemcpy(got.data(), wide.data(), wide.bytes(), cudaMemcpyDeviceToHost));
    std::int64_t wrong = 0;
    for (std::size_t i = 0; i < host.size(); ++i) {
      const float want = reference::load_as_float(host.data(), t, static_cast<std::int64_t>(i));
      wrong += std::isnan(want) ? !std::isnan(got[i]) : got[i] != want;
    }
    EXPECT_EQ(wrong, 0) << to_string(t);
  }
}

// cuBLASLt's epilogues (bias, bias + ReLU, bias + GELU) delegate; the same call forced onto the
// kernel dispatch would run reads the widened copy. M = 1, an odd M and 2113 (the pingpong pair
// at 4160 columns), N off the tile; bf16 and fp16.
TEST_F(GemmBiasDtype, DelegatedAndOwnKernelsAgree) {
  struct Shape {
    std::int64_t M, N, K;
  };
  for (DType t : {DType::kBF16, DType::kFP16}) {
    for (const Shape s : {Shape{1, 1000, 520}, Shape{333, 1000, 520}, Shape{2113, 4160, 256}}) {
      for (Activation act : {Activation::kIdentity, Activation::kReLU, Activation::kGeluTanh}) {
        GemmCase c = {s.M, s.N, s.K, t, t, 0, 0, {.alpha = true, .col_bias = true, .activation = act}};
        c.epilogue.col_bias_dtype = t;
        GemmProblem p(c, case_seed(c.name()));
        std::optional<KernelChoice> choice;
        bool delegated = false;
        ASSERT_TRUE(selected_kernel(p.args(), nullptr, &choice, &delegated).ok());
        EXPECT_TRUE(delegated) << c.name();
        const CheckReport r = run_and_check(p);
        EXPECT_TRUE(r.passed) << r.text;

        GemmCase forced = c;
        forced.kernel = name(choice->key);
        GemmProblem q(forced, case_seed(c.name()));
        EXPECT_GE(q.args().workspace_bytes, static_cast<std::size_t>(s.N) * sizeof(float)) << forced.name();
        const CheckReport own = run_and_check(q);
        EXPECT_TRUE(own.passed) << own.text;
      }
    }
  }
}

// Epilogues cuBLASLt cannot fuse run epifuse's full tree on the widened bias, special values in
// the bias included where no reduction is asked for (+inf, -inf, NaN pass through the widening;
// a NaN column makes the maxima NaN, which the reference does not model).
TEST_F(GemmBiasDtype, FullTreeReadsTheWidenedBias) {
  const EpilogueSpec specs[] = {
      {.col_scale = true, .col_bias = true, .activation = Activation::kSiLU, .residual = Residual::kAfterActivation},
      {.col_bias = true, .activation = Activation::kGeluTanh, .reductions = kRowAmax | kAmax},
  };
  for (EpilogueSpec spec : specs) {
    spec.col_bias_dtype = DType::kBF16;
    for (bool specials : {false, true}) {
      if (specials && spec.reductions != 0) continue;
      GemmCase c = {333, 1000, 520, DType::kBF16, DType::kBF16, 0, 0, spec};
      c.special_values = specials;
      GemmProblem p(c, case_seed(c.name()));
      EXPECT_FALSE(delegated_call(p.args())) << c.name();
      const CheckReport r = run_and_check(p);
      EXPECT_TRUE(r.passed) << r.text;
    }
  }
}

// A 16-bit bias two bytes off a 16-byte boundary is legal; cuBLASLt is not trusted with it, so the
// call widens it for epifuse's kernel.
TEST_F(GemmBiasDtype, BiasOffSixteenBytesRunsOwnKernel) {
  GemmCase c = {333, 1000, 520, DType::kBF16, DType::kBF16, 0, 0,
                {.col_bias = true, .activation = Activation::kGeluTanh}};
  c.epilogue.col_bias_dtype = DType::kBF16;
  GemmProblem p(c, case_seed(c.name()));
  DeviceBuffer shifted(static_cast<std::size_t>(c.N + 1) * 2);
  EPIFUSE_CHECK_CUDA(cudaMemcpy(shifted.as<char>() + 2, p.args().epilogue.col_bias, static_cast<std::size_t>(c.N) * 2,
                                cudaMemcpyDeviceToDevice));
  GemmArgs args = p.args();
  args.epilogue.col_bias = shifted.as<char>() + 2;
  EXPECT_FALSE(delegated_call(args));
  std::size_t bytes = 0;
  ASSERT_TRUE(gemm_workspace_size(args, nullptr, &bytes).ok());
  DeviceBuffer workspace(bytes);
  args.workspace = workspace.data();
  args.workspace_bytes = bytes;
  p.poison_outputs();
  const Status s = gemm(args, nullptr);
  ASSERT_TRUE(s.ok()) << s.to_string();
  EPIFUSE_CHECK_CUDA(cudaDeviceSynchronize());
  const CheckReport r = check_external_output(p, reference_accumulators(p), p.d().data(), p.ldd(), DType::kBF16,
                                              c.epilogue, Judge::kFused);
  EXPECT_TRUE(r.passed) << r.text;
}

// An own-kernel call given less workspace than the fp32 copy needs, or a misaligned one, is
// rejected and writes nothing; selected_kernel says the same.
TEST_F(GemmBiasDtype, WideningNeedsItsWorkspace) {
  GemmCase c = {333, 1000, 520, DType::kBF16, DType::kBF16, 0, 0,
                {.col_bias = true, .activation = Activation::kSiLU}};
  c.epilogue.col_bias_dtype = DType::kBF16;
  GemmProblem p(c, case_seed(c.name()));
  ASSERT_GE(p.args().workspace_bytes, 4096u);  // 1000 floats, rounded up to 256 bytes
  p.poison_outputs();
  GemmArgs small = p.args();
  small.workspace_bytes = 4000 - 16;
  expect_rejected(gemm(small, nullptr), StatusCode::kInvalidArgument,
                  "bf16 epilogue.col_bias on a call epifuse's own kernel runs is widened to fp32 in the workspace, "
                  "which needs 4096 bytes for it but holds 3984");
  std::optional<KernelChoice> choice;
  expect_rejected(selected_kernel(small, nullptr, &choice), StatusCode::kInvalidArgument, "but holds 3984");
  small.workspace = nullptr;
  expect_rejected(gemm(small, nullptr), StatusCode::kInvalidArgument, "needs 4096 bytes for it but holds 0");
  small = p.args();
  small.workspace = static_cast<char*>(small.workspace) + 4;
  small.workspace_bytes -= 16;
  expect_rejected(gemm(small, nullptr), StatusCode::kInvalidArgument, "the workspace must be 16-byte aligned");
  EPIFUSE_CHECK_CUDA(cudaDeviceSynchronize());
  const std::vector<std::uint8_t> d = p.d().download();
  EXPECT_TRUE(std::all_of(d.begin(), d.end(), [](std::uint8_t b) { return b == kPoisonByte; }));
}

// The widening and the kernel captured in one graph, replayed twice on re-poisoned outputs.
TEST_F(GemmBiasDtype, WideningInsideGraphCapture) {
  GemmCase c = {333, 1000, 520, DType::kBF16, DType::kBF16, 0, 0,
                {.col_bias = true, .activation = Activation::kSiLU, .reductions = kAmax}};
  c.epilogue.col_bias_dtype = DType::kBF16;
  GemmProblem p(c, case_seed(c.name()));
  expect_gemm_graph_replays_pass(p);
}

}  // namespace
}  // namespace epifuse::testing

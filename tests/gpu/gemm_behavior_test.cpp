// Behaviour around the math: determinism, streams, bad input launching nothing, no-op shapes,
// workspace rules, and 64-bit indexing past 2^31 output elements.
#include <algorithm>
#include <vector>

#include <cuda_runtime_api.h>

#include "tests/gpu/gpu_test.hpp"

namespace epifuse::testing {
namespace {

class GemmBehavior : public ::testing::Test {
 protected:
  void SetUp() override { EPIFUSE_REQUIRE_HOPPER(); }
};

bool all_poison(const std::vector<std::uint8_t>& bytes) {
  return std::all_of(bytes.begin(), bytes.end(), [](std::uint8_t b) { return b == kPoisonByte; });
}

std::vector<std::uint8_t> run_and_download(GemmProblem& p, cudaStream_t stream) {
  p.poison_outputs();
  const Status s = gemm(p.args(), stream);
  EXPECT_TRUE(s.ok()) << s.to_string();
  EPIFUSE_CHECK_CUDA(cudaStreamSynchronize(stream));
  std::vector<std::uint8_t> bytes = p.d().download();
  for (unsigned flag : {kRowSum, kRowAmax, kColSum, kColAmax, kAmax}) {
    const std::vector<std::uint8_t> r = p.reduction(flag)->download();
    bytes.insert(bytes.end(), r.begin(), r.end());
  }
  return bytes;
}

TEST_F(GemmBehavior, DeterministicAcrossRunsAndStreams) {
  const GemmCase c = {2048, 4096, 1024, DType::kBF16, DType::kBF16, 0, 0,
                      {.alpha = true, .col_bias = true, .activation = Activation::kGeluTanh,
                       .residual = Residual::kAfterActivation, .reductions = kAllReductions}};
  GemmProblem p(c, case_seed(c));
  const std::vector<std::uint8_t> first = run_and_download(p, nullptr);
  cudaStream_t stream;
  EPIFUSE_CHECK_CUDA(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
  const std::vector<std::uint8_t> second = run_and_download(p, stream);
  EPIFUSE_CHECK_CUDA(cudaStreamDestroy(stream));
  EXPECT_TRUE(first == second) << "two runs on the same inputs differ";

  GemmCase plain = c;
  plain.epilogue.reductions = 0;
  GemmProblem q(plain, case_seed(plain));
  EXPECT_TRUE(run_and_download(q, nullptr) == run_and_download(q, nullptr));
}

TEST_F(GemmBehavior, BadInputLaunchesNothing) {
  const GemmCase c = {333, 1000, 520, DType::kBF16, DType::kBF16, 0, 0, {.col_bias = true}};
  GemmProblem p(c, case_seed(c));
  p.poison_outputs();
  GemmArgs bad = p.args();
  bad.ldd = 999;
  EXPECT_EQ(gemm(bad, nullptr).code(), StatusCode::kInvalidArgument);
  bad = p.args();
  bad.D = const_cast<void*>(bad.A);
  EXPECT_EQ(gemm(bad, nullptr).code(), StatusCode::kInvalidArgument);
  bad = p.args();
  bad.output_dtype = DType::kFP16;
  EXPECT_EQ(gemm(bad, nullptr).code(), StatusCode::kNotSupported);
  bad = p.args();
  bad.kernel = "no_such_kernel";
  EXPECT_EQ(gemm(bad, nullptr).code(), StatusCode::kInvalidArgument);
  EPIFUSE_CHECK_CUDA(cudaDeviceSynchronize());
  EXPECT_TRUE(all_poison(p.d().download())) << "a rejected call wrote D";
}

TEST_F(GemmBehavior, ReductionsNeedTheirWorkspace) {
  const GemmCase c = {333, 1000, 520, DType::kBF16, DType::kBF16, 0, 0, {.reductions = kColSum}};
  GemmProblem p(c, case_seed(c));
  ASSERT_GT(p.args().workspace_bytes, 0u);
  p.poison_outputs();
  GemmArgs small = p.args();
  small.workspace_bytes -= 16;
  const Status s = gemm(small, nullptr);
  EXPECT_EQ(s.code(), StatusCode::kInvalidArgument);
  EXPECT_NE(s.message().find("workspace"), std::string::npos) << s.message();
  small.workspace = nullptr;
  EXPECT_EQ(gemm(small, nullptr).code(), StatusCode::kInvalidArgument);
  EPIFUSE_CHECK_CUDA(cudaDeviceSynchronize());
  EXPECT_TRUE(all_poison(p.d().download()));
}

TEST_F(GemmBehavior, EpiloguesWithoutReductionsNeedNoWorkspace) {
  for (std::int64_t M : {7, 333, 4096}) {
    const GemmCase c = {M, 1000, 520, DType::kBF16, DType::kBF16, 0, 0,
                        {.alpha = true, .col_bias = true, .activation = Activation::kGeluTanh,
                         .residual = Residual::kAfterActivation}};
    GemmProblem p(c, case_seed(c));
    std::size_t bytes = 1;
    ASSERT_TRUE(gemm_workspace_size(p.args(), &bytes).ok());
    EXPECT_EQ(bytes, 0u) << "M = " << M;
    EXPECT_EQ(p.args().workspace, nullptr);
    expect_case_passes(c);
  }
}

TEST_F(GemmBehavior, EmptyOutputIsANoOp) {
  GemmArgs none;
  none.K = 64;
  EXPECT_TRUE(gemm(none, nullptr).ok());

  const GemmCase c = {7, 1000, 520, DType::kBF16, DType::kBF16, 0, 0, {}};
  GemmProblem p(c, case_seed(c));
  p.poison_outputs();
  GemmArgs empty = p.args();
  empty.N = 0;
  EXPECT_TRUE(gemm(empty, nullptr).ok());
  empty = p.args();
  empty.M = 0;
  EXPECT_TRUE(gemm(empty, nullptr).ok());
  EPIFUSE_CHECK_CUDA(cudaDeviceSynchronize());
  EXPECT_TRUE(all_poison(p.d().download()));
}

// 75000 × 28672 outputs: past 2^31 elements, so any 32-bit index arithmetic shows up in the last rows.
TEST_F(GemmBehavior, IndexesPastTwoToThe31Elements) {
  const GemmCase c = {75000, 28672, 64, DType::kBF16, DType::kBF16, 0, 0, {.col_bias = true}};
  ASSERT_GT(c.M * c.N, std::int64_t{1} << 31);
  expect_case_passes(c);
}

}  // namespace
}  // namespace epifuse::testing

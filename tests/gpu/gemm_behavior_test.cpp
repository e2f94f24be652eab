// Behaviour around the math: determinism, what is delegated to cuBLASLt, bad input launching
// nothing (each rejection matched by its message), empty problems and their reductions, workspace rules, 64-bit indexing past
// 2^31 output elements on the large-M and the swapped kernels (and weight elements on the decode kernel), and
// the decode kernel as dispatched, eagerly and in a CUDA graph.
#include <algorithm>
#include <cmath>
#include <limits>
#include <vector>

#include <cuda_runtime_api.h>

#include "epifuse/tuning.hpp"
#include "tests/gpu/gpu_test.hpp"

namespace epifuse::testing {
namespace {

class GemmBehavior : public ::testing::Test {
 protected:
  void SetUp() override { EPIFUSE_REQUIRE_HOPPER(); }
};

constexpr const char* kDecodeKernel = "sm90_gemm_bf16_bf16_swap_warpmma_16x8x64_c1x1_biasact_noc";
constexpr const char* kDecodeKernel16 = "sm90_gemm_bf16_bf16_swap_warpmma_16x16x64_c1x1_biasact_noc";

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
  GemmProblem p(c, case_seed(c.name()));
  const std::vector<std::uint8_t> first = run_and_download(p, nullptr);
  cudaStream_t stream;
  EPIFUSE_CHECK_CUDA(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
  const std::vector<std::uint8_t> second = run_and_download(p, stream);
  EPIFUSE_CHECK_CUDA(cudaStreamDestroy(stream));
  EXPECT_TRUE(first == second) << "two runs on the same inputs differ";

  GemmCase plain = c;
  plain.epilogue.reductions = 0;
  GemmProblem q(plain, case_seed(plain.name()));
  EXPECT_TRUE(run_and_download(q, nullptr) == run_and_download(q, nullptr));
}

// gemm() hands to cuBLASLt exactly the epilogues cuBLASLt computes as epifuse defines them, and
// forced kernels never; both paths pass the same check.
TEST_F(GemmBehavior, DelegatesOnlyWhatCublasLtComputes) {
  const std::pair<EpilogueSpec, bool> cases[] = {
      {{}, true},
      {{.alpha = true, .residual = Residual::kAfterActivation}, true},
      {{.activation = Activation::kReLU, .residual = Residual::kBeforeActivation}, true},
      {{.activation = Activation::kReLU, .residual = Residual::kAfterActivation}, false},
      {{.activation = Activation::kSiLU}, false},
      {{.col_scale = true}, false},
      {{.reductions = kAmax}, false},
  };
  for (const auto& [spec, delegable] : cases) {
    const GemmCase c = {333, 1000, 520, DType::kBF16, DType::kBF16, 0, 0, spec};
    GemmProblem p(c, case_seed(c.name()));
    std::optional<KernelChoice> choice;
    bool delegated = !delegable;
    ASSERT_TRUE(selected_kernel(p.args(), nullptr, &choice, &delegated).ok());
    EXPECT_EQ(delegated, delegable) << c.name();
    ASSERT_TRUE(choice.has_value()) << c.name();
    const CheckReport r = run_and_check(p);
    EXPECT_TRUE(r.passed) << r.text;
    EXPECT_EQ(r.kernel == kDelegatedKernelName, delegable) << r.kernel;

    GemmCase forced = c;  // the kernel dispatch would run, forced: never delegated
    forced.kernel = name(choice->key);
    GemmProblem q(forced, case_seed(c.name()));
    ASSERT_TRUE(selected_kernel(q.args(), nullptr, &choice, &delegated).ok());
    EXPECT_FALSE(delegated) << forced.name();
    const CheckReport own = run_and_check(q);
    EXPECT_TRUE(own.passed) << own.text;
  }
}

// bias + GELU over four waves of 128x128 tiles runs the pingpong pair (gemm_heuristics.cpp):
// here 17 row tiles, the last 65 rows full, and 33 column tiles, so the 1x2 cluster along N has a
// half-empty last pair.
TEST_F(GemmBehavior, BiasActivationOnManyTilesRunsThePingpongPair) {
  for (Activation act : {Activation::kGeluTanh, Activation::kReLU}) {
    const GemmCase c = {2113, 4160, 256, DType::kBF16, DType::kBF16, 0, 0,
                        {.alpha = true, .col_bias = true, .activation = act}};
    GemmProblem p(c, case_seed(c.name()));
    std::optional<KernelChoice> choice;
    bool delegated = true;
    ASSERT_TRUE(selected_kernel(p.args(), nullptr, &choice, &delegated).ok());
    ASSERT_FALSE(delegated) << "cuBLASLt takes no fp32 bias with a bf16 D";
    ASSERT_TRUE(choice.has_value());
    EXPECT_EQ(name(choice->key), "sm90_gemm_bf16_bf16_pingpong_128x128x64_c1x2_biasact_noc");
    const CheckReport r = run_and_check(p);
    EXPECT_TRUE(r.passed) << r.text;
  }
}

TEST_F(GemmBehavior, BadInputLaunchesNothing) {
  const GemmCase c = {333, 1000, 520, DType::kBF16, DType::kBF16, 0, 0, {.col_bias = true, .reductions = kAmax}};
  GemmProblem p(c, case_seed(c.name()));
  p.poison_outputs();
  GemmArgs bad = p.args();
  bad.ldd = 999;
  expect_rejected(gemm(bad, nullptr), StatusCode::kInvalidArgument, "ldd (999) must be >= N (1000)");
  bad = p.args();
  bad.D = const_cast<void*>(bad.A);
  expect_rejected(gemm(bad, nullptr), StatusCode::kInvalidArgument, "D overlaps A");
  bad = p.args();
  bad.d_dtype = DType::kFP16;
  expect_rejected(gemm(bad, nullptr), StatusCode::kNotSupported, "A bf16, B bf16, D fp16 is not compiled");
  bad = p.args();
  bad.epilogue.alpha = std::numeric_limits<float>::quiet_NaN();
  expect_rejected(gemm(bad, nullptr), StatusCode::kInvalidArgument, "epilogue.alpha must be finite");
  bad = p.args();
  KernelKey other = compiled_kernels(Op::kGemm).front();
  other.tile.n = 72;
  bad.kernel = KernelChoice{other};
  expect_rejected(gemm(bad, nullptr), StatusCode::kInvalidArgument, "is not compiled in this build");
  EPIFUSE_CHECK_CUDA(cudaDeviceSynchronize());
  EXPECT_TRUE(all_poison(p.d().download())) << "a rejected call wrote D";
  EXPECT_TRUE(all_poison(p.reduction(kAmax)->download())) << "a rejected call zeroed amax";
}

TEST_F(GemmBehavior, ReductionsNeedTheirWorkspace) {
  const GemmCase c = {333, 1000, 520, DType::kBF16, DType::kBF16, 0, 0, {.reductions = kColSum}};
  GemmProblem p(c, case_seed(c.name()));
  ASSERT_GT(p.args().workspace_bytes, 0u);
  p.poison_outputs();
  GemmArgs small = p.args();
  small.workspace_bytes -= 16;
  expect_rejected(gemm(small, nullptr), StatusCode::kInvalidArgument,
                  "gemm: this call needs " + std::to_string(p.args().workspace_bytes) + " bytes of workspace");
  small.workspace = nullptr;
  expect_rejected(gemm(small, nullptr), StatusCode::kInvalidArgument, "bytes of workspace");
  DeviceBuffer roomy(p.args().workspace_bytes + 64);
  small = p.args();
  small.workspace = roomy.as<char>() + 4;
  small.workspace_bytes = p.args().workspace_bytes + 32;
  expect_rejected(gemm(small, nullptr), StatusCode::kInvalidArgument, "the workspace must be 16-byte aligned");
  EPIFUSE_CHECK_CUDA(cudaDeviceSynchronize());
  EXPECT_TRUE(all_poison(p.d().download()));
  EXPECT_TRUE(all_poison(p.reduction(kColSum)->download()));
}

// Without reductions the workspace is optional: the query may ask for stream-K's, and a call
// given none still runs, correctly (a whole-tile kernel where stream-K would need one).
TEST_F(GemmBehavior, EpiloguesWithoutReductionsRunWithoutAWorkspace) {
  for (std::int64_t M : {7, 333, 4096}) {
    const GemmCase c = {M, 1000, 8192, DType::kBF16, DType::kBF16, 0, 0,
                        {.alpha = true, .col_bias = true, .activation = Activation::kGeluTanh,
                         .residual = Residual::kAfterActivation}};
    GemmProblem p(c, case_seed(c.name()));
    std::size_t bytes = 1;
    ASSERT_TRUE(gemm_workspace_size(p.args(), nullptr, &bytes).ok());
    EXPECT_EQ(p.args().workspace_bytes, bytes) << "M = " << M;
    p.drop_workspace();
    const CheckReport r = run_and_check(p);
    EXPECT_TRUE(r.passed) << r.text;
  }
}

// M = 0 or N = 0: no GEMM; the requested reductions over what is not empty become their
// identity, 0 (experts with no tokens are common), and nothing else is written.
TEST_F(GemmBehavior, EmptyProblemsSetReductionsToTheirIdentity) {
  const GemmCase c = {7, 1000, 520, DType::kBF16, DType::kBF16, 0, 0, {.reductions = kAllReductions}};
  GemmProblem p(c, case_seed(c.name()));
  auto floats = [](const DeviceBuffer* b) {
    std::vector<float> f(b->bytes() / sizeof(float));
    EPIFUSE_CHECK_CUDA(cudaMemcpy(f.data(), b->data(), b->bytes(), cudaMemcpyDeviceToHost));
    return f;
  };
  for (bool empty_m : {true, false}) {
    p.poison_outputs();
    GemmArgs empty = p.args();
    (empty_m ? empty.M : empty.N) = 0;
    ASSERT_TRUE(gemm(empty, nullptr).ok()) << (empty_m ? "M = 0" : "N = 0");
    EPIFUSE_CHECK_CUDA(cudaDeviceSynchronize());
    EXPECT_TRUE(all_poison(p.d().download()));
    for (unsigned flag : {kRowSum, kRowAmax, kColSum, kColAmax, kAmax}) {
      const bool written = flag == kAmax || (empty_m ? (flag == kColSum || flag == kColAmax)
                                                     : (flag == kRowSum || flag == kRowAmax));
      for (float v : floats(p.reduction(flag))) {
        if (written) {
          ASSERT_EQ(v, 0.0f) << "reduction " << flag << (empty_m ? " at M = 0" : " at N = 0");
        } else {
          ASSERT_TRUE(std::isnan(v)) << "reduction " << flag << " over an empty range was written";
        }
      }
    }
  }
  GemmArgs none;
  none.K = 64;
  EXPECT_TRUE(gemm(none, nullptr).ok());
}

// Past 2^31 output elements any 32-bit index arithmetic shows up in the last rows: on the
// large-M kernels (75000 × 28672: dispatch runs the pingpong pair, and the cooperative 128x256 one
// forced) and on the swapped small-M kernel (64 × 2^25 + 64).
TEST_F(GemmBehavior, IndexesPastTwoToThe31Elements) {
  const std::pair<std::int64_t, std::int64_t> shapes[] = {{75000, 28672}, {64, (1 << 25) + 64}};
  for (const auto& [M, N] : shapes) {
    const GemmCase c = {M, N, 64, DType::kBF16, DType::kBF16, 0, 0, {.col_bias = true}};
    ASSERT_GT(c.M * c.N, std::int64_t{1} << 31);
    expect_case_passes(c);
  }
  GemmCase cooperative = {75000, 28672, 64, DType::kBF16, DType::kBF16, 0, 0, {.col_bias = true}};
  cooperative.kernel = "sm90_gemm_bf16_bf16_coop_128x256x64_c2x1_biasact_noc";
  expect_case_passes(cooperative);
  // The decode kernels past 2^31 weight elements (their last rows lie beyond 4 GB).
  for (const auto& [M, kernel] : {std::pair{8, kDecodeKernel}, std::pair{16, kDecodeKernel16}}) {
    GemmCase decode = {M, (1 << 25) + 64, 64, DType::kBF16, DType::kBF16, 0, 0, {.col_bias = true}};
    decode.kernel = kernel;
    ASSERT_GT(decode.N * decode.K, std::int64_t{1} << 31);
    expect_case_passes(decode);
  }
}

// Up to 64 tokens, an epilogue cuBLASLt does not compute runs epifuse's decode kernels
// (gemm_heuristics.cpp): the warp-mma kernels while their blocks fit in a wave (two token tiles past
// 8 tokens, rows of 16 tokens on narrow weights past 16), else the swapped 128x32 kernel; at 9-64
// tokens few weight tiles of at least 4 MiB, and long rows where the warp-mma kernels would run,
// take cuBLASLt's fp32 product + the bias + activation kernel. Also inside a CUDA graph, replayed
// on new inputs, as does a plain call on a narrow weight; a plain call on a wider one stays with
// cuBLASLt.
TEST_F(GemmBehavior, DecodeRunsItsKernelsAlsoInAGraph) {
  const GemmCase plain = {1, 4096, 4096, DType::kBF16, DType::kBF16, 0, 0, {}};
  const GemmProblem delegated_problem(plain, case_seed(plain.name()));
  std::optional<KernelChoice> plain_choice;
  bool plain_delegated = false;
  ASSERT_TRUE(selected_kernel(delegated_problem.args(), nullptr, &plain_choice, &plain_delegated).ok());
  EXPECT_TRUE(plain_delegated);

  constexpr const char* kSwapped32 = "sm90_gemm_bf16_bf16_swap_coop_128x32x128_c1x1_biasact_noc";
  constexpr const char* kDelegated = nullptr;  // cuBLASLt's fp32 product + the bias + activation kernel
  const EpilogueSpec bias_gelu = {.col_bias = true, .activation = Activation::kGeluTanh};
  const EpilogueSpec scaled_silu = {.alpha = true, .col_bias = true, .activation = Activation::kSiLU};
  // An H100's HBM3 (under 4 TB/s) runs 9-16 tokens on more than 192 blocks of rows of at most 4096
  // on the 128x32 kernel; an H200's on the 16-token kernel.
  int device = 0, memory_khz = 0, bus_bits = 0;
  EPIFUSE_CHECK_CUDA(cudaGetDevice(&device));
  EPIFUSE_CHECK_CUDA(cudaDeviceGetAttribute(&memory_khz, cudaDevAttrMemoryClockRate, device));
  EPIFUSE_CHECK_CUDA(cudaDeviceGetAttribute(&bus_bits, cudaDevAttrGlobalMemoryBusWidth, device));
  const bool hbm3 = 2.0 * memory_khz * 1e3 * (bus_bits / 8) / 1e9 < 4000;
  const std::pair<GemmCase, const char*> cases[] = {
      {{1, 4096, 4096, DType::kBF16, DType::kBF16, 0, 0, {.activation = Activation::kSiLU}}, kDecodeKernel},
      {{3, 1024, 4096, DType::kBF16, DType::kBF16, 0, 0, {}}, kDecodeKernel},  // plain, but a narrow weight: not delegated
      {{5, 1000, 520, DType::kBF16, DType::kBF16, 0, 0, scaled_silu}, kDecodeKernel},
      {{8, 3072, 8192, DType::kBF16, DType::kBF16, 0, 0, bias_gelu}, kDecodeKernel},
      {{13, 3072, 2048, DType::kBF16, DType::kBF16, 0, 0, bias_gelu}, kDecodeKernel16},
      {{16, 1000, 520, DType::kBF16, DType::kBF16, 0, 0, scaled_silu}, kDecodeKernel16},
      // Few blocks of long rows: 8 CTAs of a cluster share each block's K loop at one token tile;
      // at two, rows of 16384 or more are delegated.
      {{2, 448, 35264, DType::kBF16, DType::kBF16, 0, 0, bias_gelu}, kDecodeKernel},
      // At 1-8 tokens, 1024-4095 rows past 16384: delegated on an H200.
      {{1, 1024, 16448, DType::kBF16, DType::kBF16, 0, 0, bias_gelu}, hbm3 ? kDecodeKernel : kDelegated},
      {{13, 256, 20032, DType::kBF16, DType::kBF16, 0, 0, bias_gelu}, kDelegated},
      {{11, 640, 52480, DType::kBF16, DType::kBF16, 0, 0, bias_gelu}, kDelegated},  // past 64 MiB, 40 blocks
      // Two blocks per CTA from 24 MiB: 132 CTAs of 8 warps in 2 shares; 64 CTAs of 4 warps in 8.
      // Past 64 MiB on 65 blocks of rows of 32768: delegated.
      {{9, 4224, 4160, DType::kBF16, DType::kBF16, 0, 0, bias_gelu}, kDecodeKernel16},
      {{13, 2048, 8192, DType::kBF16, DType::kBF16, 0, 0, scaled_silu}, kDecodeKernel16},
      {{11, 1040, 32768, DType::kBF16, DType::kBF16, 0, 0, bias_gelu}, kDelegated},
      {{12, 4096, 4096, DType::kBF16, DType::kBF16, 0, 0, bias_gelu}, hbm3 ? kDelegated : kDecodeKernel16},
      // 17-64 tokens on narrow weights: rows of 16 tokens (the last one of 1 token; 4 shares).
      {{33, 488, 1032, DType::kBF16, DType::kBF16, 0, 0, scaled_silu}, kDecodeKernel16},
      {{25, 256, 8192, DType::kBF16, DType::kBF16, 0, 0, bias_gelu}, kDecodeKernel16},
      // Past the warp-mma kernels' waves (532 blocks at 7 tokens, 384 at 13), and 17-64 tokens
      // past the rows' limits (blocks x rows over 132, rows x N x K over 2^24): whole tiles on
      // many tiles or small weights; few tiles of at least 4 MiB delegated (16 and 8 tiles).
      {{7, 8512, 256, DType::kBF16, DType::kBF16, 0, 0, bias_gelu}, kSwapped32},
      {{13, 6144, 2048, DType::kBF16, DType::kBF16, 0, 0, scaled_silu}, kSwapped32},
      {{37, 1000, 520, DType::kBF16, DType::kBF16, 0, 0, scaled_silu}, kSwapped32},
      {{64, 1000, 8200, DType::kBF16, DType::kBF16, 0, 0, bias_gelu}, kDelegated},
      {{64, 512, 16384, DType::kBF16, DType::kBF16, 0, 0, bias_gelu}, kDelegated},
  };
  cudaStream_t stream;
  EPIFUSE_CHECK_CUDA(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
  for (const auto& [c, kernel] : cases) {
    GemmProblem p(c, case_seed(c.name()));
    std::optional<KernelChoice> choice;
    bool delegated = false;
    ASSERT_TRUE(selected_kernel(p.args(), nullptr, &choice, &delegated).ok());
    EXPECT_EQ(delegated, kernel == kDelegated) << c.name();
    ASSERT_TRUE(choice.has_value());
    if (kernel != kDelegated) EXPECT_EQ(name(choice->key), kernel) << c.name();
    const CheckReport r = run_and_check(p);
    EXPECT_TRUE(r.passed) << r.text;

    const GemmProblem other(c, case_seed(c.name()) + 1);
    cudaGraph_t graph;
    EPIFUSE_CHECK_CUDA(cudaStreamBeginCapture(stream, cudaStreamCaptureModeGlobal));
    const Status s = gemm(p.args(), stream);
    const cudaError_t captured = cudaStreamEndCapture(stream, &graph);
    ASSERT_TRUE(s.ok()) << s.to_string();
    ASSERT_EQ(captured, cudaSuccess) << cudaGetErrorString(captured);
    cudaGraphExec_t exec;
    EPIFUSE_CHECK_CUDA(cudaGraphInstantiate(&exec, graph, 0));
    EPIFUSE_CHECK_CUDA(cudaMemcpy(p.a().data(), other.a().data(), other.a().bytes(), cudaMemcpyDefault));
    p.poison_outputs();
    EPIFUSE_CHECK_CUDA(cudaGraphLaunch(exec, stream));
    EPIFUSE_CHECK_CUDA(cudaStreamSynchronize(stream));
    const CheckReport replay = check_external_output(p, reference_accumulators(p), p.d().data(), p.ldd(),
                                                     DType::kBF16, c.epilogue, Judge::kFused);
    EXPECT_TRUE(replay.passed) << "replay on new inputs: " << replay.text;
    EPIFUSE_CHECK_CUDA(cudaGraphExecDestroy(exec));
    EPIFUSE_CHECK_CUDA(cudaGraphDestroy(graph));
  }
  EPIFUSE_CHECK_CUDA(cudaStreamDestroy(stream));
}

}  // namespace
}  // namespace epifuse::testing

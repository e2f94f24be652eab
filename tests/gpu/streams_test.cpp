// Streams and threads: four host threads with streams of their own, the per-thread default
// stream, CUDA-graph capture in Global mode as the process's first launch of the kernels (the
// FirstCall tests run in a process of their own: tests/CMakeLists.txt) and of calls that ran
// before, and the TMA descriptors each thread keeps.
#include <cmath>
#include <cstring>
#include <optional>
#include <thread>
#include <vector>

#include <cuda_runtime_api.h>

#include "epifuse/tuning.hpp"
#include "kernels/tensor_map_cache.hpp"
#include "tests/gpu/gpu_test.hpp"

namespace epifuse::testing {
namespace {

class Streams : public ::testing::Test {
 protected:
  void SetUp() override { EPIFUSE_REQUIRE_HOPPER(); }
};

TEST_F(Streams, FourHostThreadsWithTheirOwnStreams) {
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([t] {
      cudaStream_t stream;
      EPIFUSE_CHECK_CUDA(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
      for (int round = 0; round < 3; ++round) {
        const std::int64_t M = 40 + 300 * t + round;  // swapped and large-M kernels across threads
        expect_case_passes({M, 1000, 520, DType::kBF16, DType::kBF16, 0, 0,
                            {.col_bias = true, .activation = Activation::kSiLU, .reductions = kRowAmax | kAmax}},
                           stream);
        expect_gated_passes({M, 1000, 520, DType::kBF16, GatedActivation::kSwiGLU, true}, stream);
      }
      EPIFUSE_CHECK_CUDA(cudaStreamDestroy(stream));
    });
  }
  for (std::thread& t : threads) t.join();
}

TEST_F(Streams, PerThreadDefaultStream) {
  expect_case_passes({333, 1000, 520, DType::kBF16, DType::kBF16, 0, 0, {.residual = Residual::kAfterActivation}},
                     cudaStreamPerThread);
  expect_gated_passes({13, 1000, 520, DType::kBF16, GatedActivation::kGeGLUTanh, true}, cudaStreamPerThread);
}

// Both ops captured in one graph in Global mode, before either kernel ever ran in this process
// (no warm-up: shared-memory attributes, module loading and amax's zeroing all happen under
// capture), then the graph replayed twice and its outputs checked.
TEST_F(Streams, FirstCallInsideGraphCaptureInGlobalMode) {
  const GemmCase gemm_case = {333, 1000, 520, DType::kBF16, DType::kBF16, 0, 0,
                              {.col_bias = true, .activation = Activation::kGeluTanh, .reductions = kAmax}};
  const GatedCase gated_case = {200, 1000, 520, DType::kBF16, GatedActivation::kSwiGLU, true};
  // The warp-mma kernel, forced, a cluster of 4 per block of rows (its first launch sizes itself).
  GatedCase decode_case = {3, 1000, 4096, DType::kBF16, GatedActivation::kGeGLUTanh, true};
  decode_case.kernel = "sm90_gated_mlp_bf16_bf16_swap_warpmma_16x8x64_c1x1";
  decode_case.splits = 4;
  GemmProblem gp(gemm_case, case_seed(gemm_case.name()));
  GatedProblem mp(gated_case, case_seed(gated_case.name()));
  GatedProblem dp(decode_case, case_seed(decode_case.name()));
  gp.poison_outputs();
  mp.poison_output();
  dp.poison_output();
  cudaStream_t stream;
  EPIFUSE_CHECK_CUDA(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
  cudaGraph_t graph;
  EPIFUSE_CHECK_CUDA(cudaStreamBeginCapture(stream, cudaStreamCaptureModeGlobal));
  const Status g = gemm(gp.args(), stream);
  const Status m = gated_mlp(mp.args(), stream);
  const Status d = gated_mlp(dp.args(), stream);
  const cudaError_t captured = cudaStreamEndCapture(stream, &graph);
  ASSERT_TRUE(g.ok()) << g.to_string();
  ASSERT_TRUE(m.ok()) << m.to_string();
  ASSERT_TRUE(d.ok()) << d.to_string();
  ASSERT_EQ(captured, cudaSuccess) << cudaGetErrorString(captured);
  cudaGraphExec_t exec;
  EPIFUSE_CHECK_CUDA(cudaGraphInstantiate(&exec, graph, 0));
  const ReferenceAccumulators reference = reference_accumulators(gp);
  float first_amax = 0.0f;
  for (int replay = 0; replay < 2; ++replay) {
    gp.poison_outputs();  // NaN in D and amax: the graph itself must zero amax before its atomics
    mp.poison_output();
    dp.poison_output();
    EPIFUSE_CHECK_CUDA(cudaGraphLaunch(exec, stream));
    EPIFUSE_CHECK_CUDA(cudaStreamSynchronize(stream));
    const CheckReport r = check_external_output(gp, reference, gp.d().data(), gp.ldd(), DType::kBF16,
                                                gemm_case.epilogue, Judge::kFused);
    EXPECT_TRUE(r.passed) << r.text;
    float amax;
    EPIFUSE_CHECK_CUDA(cudaMemcpy(&amax, gp.reduction(kAmax)->data(), sizeof amax, cudaMemcpyDeviceToHost));
    EXPECT_TRUE(std::isfinite(amax) && amax > 0.0f) << "amax " << amax << " after replay " << replay;
    if (replay == 0) first_amax = amax;
    EXPECT_EQ(amax, first_amax) << "replays differ";
    const GatedReport q = check_gated_output(mp, mp.out().data(), mp.args().ldo);
    EXPECT_TRUE(q.passed) << q.text;
    const GatedReport decode = check_gated_output(dp, dp.out().data(), dp.args().ldo);
    EXPECT_TRUE(decode.passed) << decode.text;
  }
  EPIFUSE_CHECK_CUDA(cudaGraphExecDestroy(exec));
  EPIFUSE_CHECK_CUDA(cudaGraphDestroy(graph));
  EPIFUSE_CHECK_CUDA(cudaStreamDestroy(stream));
}

// Calls that ran before, captured in Global mode: their TMA descriptors come from the thread's
// cache, with no capture-mode exchange around them. The second replay runs on new inputs in the
// same buffers.
TEST_F(Streams, CallsThatRanBeforeAreCapturedInGlobalMode) {
  const GemmCase gemm_case = {333, 1000, 520, DType::kBF16, DType::kBF16, 0, 0,
                              {.col_bias = true, .activation = Activation::kGeluTanh}};
  const GatedCase gated_case = {37, 14336, 2048, DType::kBF16, GatedActivation::kSwiGLU, true};
  GemmProblem gp(gemm_case, case_seed(gemm_case.name()));
  GatedProblem mp(gated_case, case_seed(gated_case.name()));
  const GemmProblem other_gemm(gemm_case, case_seed(gemm_case.name()) + 1);
  const GatedProblem other_gated(gated_case, case_seed(gated_case.name()) + 1);
  cudaStream_t stream;
  EPIFUSE_CHECK_CUDA(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
  ASSERT_TRUE(gemm(gp.args(), stream).ok());
  ASSERT_TRUE(gated_mlp(mp.args(), stream).ok());
  EPIFUSE_CHECK_CUDA(cudaStreamSynchronize(stream));
  cudaGraph_t graph;
  EPIFUSE_CHECK_CUDA(cudaStreamBeginCapture(stream, cudaStreamCaptureModeGlobal));
  const Status g = gemm(gp.args(), stream);
  const Status m = gated_mlp(mp.args(), stream);
  const cudaError_t captured = cudaStreamEndCapture(stream, &graph);
  ASSERT_TRUE(g.ok()) << g.to_string();
  ASSERT_TRUE(m.ok()) << m.to_string();
  ASSERT_EQ(captured, cudaSuccess) << cudaGetErrorString(captured);
  cudaGraphExec_t exec;
  EPIFUSE_CHECK_CUDA(cudaGraphInstantiate(&exec, graph, 0));
  for (int replay = 0; replay < 2; ++replay) {
    if (replay == 1) {
      EPIFUSE_CHECK_CUDA(cudaMemcpy(gp.a().data(), other_gemm.a().data(), other_gemm.a().bytes(), cudaMemcpyDefault));
      EPIFUSE_CHECK_CUDA(cudaMemcpy(mp.x().data(), other_gated.x().data(), other_gated.x().bytes(), cudaMemcpyDefault));
    }
    gp.poison_outputs();
    mp.poison_output();
    EPIFUSE_CHECK_CUDA(cudaGraphLaunch(exec, stream));
    EPIFUSE_CHECK_CUDA(cudaStreamSynchronize(stream));
    const CheckReport r = check_external_output(gp, reference_accumulators(gp), gp.d().data(), gp.ldd(),
                                                DType::kBF16, gemm_case.epilogue, Judge::kFused);
    EXPECT_TRUE(r.passed) << "replay " << replay << ": " << r.text;
    const GatedReport q = check_gated_output(mp, mp.out().data(), mp.args().ldo);
    EXPECT_TRUE(q.passed) << "replay " << replay << ": " << q.text;
  }
  EPIFUSE_CHECK_CUDA(cudaGraphExecDestroy(exec));
  EPIFUSE_CHECK_CUDA(cudaGraphDestroy(graph));
  EPIFUSE_CHECK_CUDA(cudaStreamDestroy(stream));
}

// Calls whose TMA descriptors are encoded anew, then encoded and kept, then taken from the
// thread's cache: each one checked against the reference (decode, mid-size and prefill kernels).
TEST_F(Streams, KeptAndFreshDescriptorsComputeTheSame) {
  const GatedCase gated_cases[] = {{1, 14336, 4096, DType::kBF16, GatedActivation::kSwiGLU, true},
                                   {200, 1000, 520, DType::kBF16, GatedActivation::kGeGLUTanh, true},
                                   {777, 4096, 1024, DType::kBF16, GatedActivation::kSwiGLU, false}};
  const GemmCase gemm_case = {333, 1000, 520, DType::kBF16, DType::kBF16, 0, 0,
                              {.col_bias = true, .activation = Activation::kGeluTanh, .reductions = kAmax}};
  for (const bool keep : {false, true, true}) {
    SCOPED_TRACE(keep ? "descriptors kept" : "descriptors encoded anew");
    detail::keep_tensor_maps(keep);
    for (const GatedCase& c : gated_cases) expect_gated_passes(c);
    expect_case_passes(gemm_case);
  }
  detail::keep_tensor_maps(true);
}

// A delegated gated call (cuBLASLt + act·mul) whose shape this process has not planned yet,
// captured in Global mode: cuBLASLt's heuristic query runs under capture, then the graph replays.
TEST_F(Streams, DelegatedGatedCallInsideGraphCapture) {
  const GatedCase c = {97, 320, 6144, DType::kBF16, GatedActivation::kGeGLUTanh, true};
  GatedProblem p(c, case_seed(c.name()));
  expect_gated_graph_replays_pass(p);
  std::optional<KernelChoice> choice;
  bool delegated = false;
  ASSERT_TRUE(selected_kernel(p.args(), nullptr, &choice, &delegated).ok());
  EXPECT_TRUE(delegated) << "dispatch no longer delegates " << c.name();
}

}  // namespace
}  // namespace epifuse::testing

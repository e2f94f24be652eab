#include "tests/gpu/gpu_test.hpp"

#include <cstdio>
#include <functional>

#include "testing/random.hpp"

namespace epifuse::testing {

std::uint64_t case_seed(const std::string& case_name) {
  return derive_seed(run_seed(), std::hash<std::string>{}(case_name));
}

void expect_case_passes(const GemmCase& c, cudaStream_t stream) {
  GemmProblem problem(c, case_seed(c.name()));
  const CheckReport report = run_and_check(problem, nullptr, stream);
  std::printf("[case] %-70s %-50s rel_l2 %.2e (once-rounded %.2e, unfused %.2e) elem %.2f rows %lld %s\n",
              c.name().c_str(), report.kernel.c_str(), report.ours.rel_l2, report.ours.rounded_rel_l2,
              report.unfused_rel_l2, report.ours.worst_elem, static_cast<long long>(report.rows_checked),
              report.passed ? "pass" : "FAIL");
  EXPECT_TRUE(report.passed) << report.text;
}

void expect_gated_passes(const GatedCase& c, cudaStream_t stream) {
  GatedProblem problem(c, case_seed(c.name()));
  const GatedReport r = run_and_check_gated(problem, stream);
  std::printf("[gated] %-60s %-52s rel_l2 %.2e (once-rounded %.2e, unfused %.2e) elem %.2f rows %lld cols %lld %s\n",
              c.name().c_str(), r.kernel.c_str(), r.ours.rel_l2, r.ours.rounded_rel_l2, r.unfused_rel_l2,
              r.ours.worst_elem, static_cast<long long>(r.rows_checked), static_cast<long long>(r.cols_checked),
              r.passed ? "pass" : "FAIL");
  EXPECT_TRUE(r.passed) << r.text;
}

void expect_gemm_graph_replays_pass(GemmProblem& p, int replays) {
  cudaStream_t stream;
  EPIFUSE_CHECK_CUDA(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
  cudaGraph_t graph;
  EPIFUSE_CHECK_CUDA(cudaStreamBeginCapture(stream, cudaStreamCaptureModeGlobal));
  const Status s = gemm(p.args(), stream);
  const cudaError_t captured = cudaStreamEndCapture(stream, &graph);
  ASSERT_TRUE(s.ok()) << s.to_string();
  ASSERT_EQ(captured, cudaSuccess) << cudaGetErrorString(captured);
  cudaGraphExec_t exec;
  EPIFUSE_CHECK_CUDA(cudaGraphInstantiate(&exec, graph, 0));
  const ReferenceAccumulators reference = reference_accumulators(p);
  for (int replay = 0; replay < replays; ++replay) {
    p.poison_outputs();
    EPIFUSE_CHECK_CUDA(cudaGraphLaunch(exec, stream));
    EPIFUSE_CHECK_CUDA(cudaStreamSynchronize(stream));
    const CheckReport r = check_external_output(p, reference, p.d().data(), p.ldd(), p.spec().output,
                                                p.spec().epilogue, Judge::kFused);
    EXPECT_TRUE(r.passed) << "replay " << replay << ": " << r.text;
  }
  EPIFUSE_CHECK_CUDA(cudaGraphExecDestroy(exec));
  EPIFUSE_CHECK_CUDA(cudaGraphDestroy(graph));
  EPIFUSE_CHECK_CUDA(cudaStreamDestroy(stream));
}

void expect_gated_graph_replays_pass(GatedProblem& p, int replays) {
  cudaStream_t stream;
  EPIFUSE_CHECK_CUDA(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
  cudaGraph_t graph;
  EPIFUSE_CHECK_CUDA(cudaStreamBeginCapture(stream, cudaStreamCaptureModeGlobal));
  const Status s = gated_mlp(p.args(), stream);
  const cudaError_t captured = cudaStreamEndCapture(stream, &graph);
  ASSERT_TRUE(s.ok()) << s.to_string();
  ASSERT_EQ(captured, cudaSuccess) << cudaGetErrorString(captured);
  cudaGraphExec_t exec;
  EPIFUSE_CHECK_CUDA(cudaGraphInstantiate(&exec, graph, 0));
  for (int replay = 0; replay < replays; ++replay) {
    p.poison_output();
    EPIFUSE_CHECK_CUDA(cudaGraphLaunch(exec, stream));
    EPIFUSE_CHECK_CUDA(cudaStreamSynchronize(stream));
    const GatedReport r = check_gated_output(p, p.out().data(), p.args().ldo);
    EXPECT_TRUE(r.passed) << "replay " << replay << ": " << r.text;
  }
  EPIFUSE_CHECK_CUDA(cudaGraphExecDestroy(exec));
  EPIFUSE_CHECK_CUDA(cudaGraphDestroy(graph));
  EPIFUSE_CHECK_CUDA(cudaStreamDestroy(stream));
}

void expect_rejected(const Status& s, StatusCode code, const std::string& message) {
  EXPECT_EQ(s.code(), code) << s.to_string();
  EXPECT_NE(s.message().find(message), std::string::npos) << "expected: " << message << "\ngot: " << s.message();
}

}  // namespace epifuse::testing

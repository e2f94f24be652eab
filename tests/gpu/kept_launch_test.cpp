// Kept launches (api/kept_launches.hpp): a call that launched one kernel and nothing else is kept
// by its arguments at their second call, and later calls with the same arguments repeat that
// launch. The repeat reads its operands anew, passes the fp64 check, matches the whole path bit
// for bit, replays from a CUDA graph, and still refuses to launch over a pending CUDA error.
// Calls that enqueue more than their kernel (a GEMM's reductions, a stream-K workspace) are not
// kept.
#include <cstdint>
#include <optional>
#include <vector>

#include <cuda_runtime_api.h>

#include "api/kept_launches.hpp"
#include "epifuse/tuning.hpp"
#include "tests/gpu/gpu_test.hpp"

namespace epifuse::testing {
namespace {

class KeptLaunches : public ::testing::Test {
 protected:
  void SetUp() override {
    EPIFUSE_REQUIRE_HOPPER();
    detail::forget_kept_launches();
  }
  void TearDown() override { detail::keep_launches(true); }
};

// A gated call at decode (the warp-mma kernel on an H200), one on the swapped 128x32 CUTLASS
// kernel, and a GEMM with an fp32 bias and GELU (epifuse's own kernel: cuBLASLt takes no fp32
// bias with a bf16 D).
const GatedCase kDecodeGated = {5, 1024, 512, DType::kBF16, GatedActivation::kSwiGLU, true};
const GatedCase kCutlassGated = {40, 3000, 1024, DType::kBF16, GatedActivation::kGeGLUTanh, false};
const GemmCase kBiasGelu = {1, 4096, 4096, DType::kBF16, DType::kBF16, 0, 0,
                            {.col_bias = true, .activation = Activation::kGeluTanh}};

void copy_device(const void* to, const void* from, std::size_t bytes) {
  EPIFUSE_CHECK_CUDA(cudaMemcpy(const_cast<void*>(to), from, bytes, cudaMemcpyDeviceToDevice));
}

// The second call with the same arguments keeps its launch, the third repeats it; with other
// operands copied into the same buffers, it computes them (the kernel reads its operands, not a
// copy).
TEST_F(KeptLaunches, ARepeatedGatedCallReadsItsOperandsAnew) {
  for (const GatedCase& c : {kDecodeGated, kCutlassGated}) {
    SCOPED_TRACE(c.name());
    detail::forget_kept_launches();
    GatedProblem p(c, case_seed(c.name()));
    const std::size_t repeats = detail::repeated_launch_count();
    for (int call = 0; call < 3; ++call) {
      const GatedReport r = run_and_check_gated(p);
      EXPECT_TRUE(r.passed) << "call " << call << ": " << r.text;
      EXPECT_EQ(detail::kept_launch_count(), call == 0 ? 0u : 1u) << "call " << call;
    }
    EXPECT_EQ(detail::repeated_launch_count(), repeats + 1) << "the third call did not repeat the launch";

    GatedProblem other(c, case_seed(c.name() + " other operands"));
    const GatedMlpArgs& a = p.args();
    const GatedMlpArgs& b = other.args();
    copy_device(a.x, b.x, static_cast<std::size_t>(a.M * a.ldx) * 2);
    copy_device(a.w.weight, b.w.weight, static_cast<std::size_t>(2 * a.w.N * a.w.ld) * 2);
    if (a.w.bias != nullptr) copy_device(a.w.bias, b.w.bias, static_cast<std::size_t>(2 * a.w.N) * sizeof(float));
    p.poison_output();
    const Status s = gated_mlp(a, nullptr);
    ASSERT_TRUE(s.ok()) << s.to_string();
    EPIFUSE_CHECK_CUDA(cudaDeviceSynchronize());
    EXPECT_EQ(detail::repeated_launch_count(), repeats + 2);
    const GatedReport moved = check_gated_output(other, p.out().data(), a.ldo);
    EXPECT_TRUE(moved.passed) << moved.text;
  }
}

// Two layers' calls in turn, as a decode step makes them: both kept at their second call.
TEST_F(KeptLaunches, CallsInTurnAreAllKept) {
  GatedProblem first(kDecodeGated, case_seed(kDecodeGated.name() + " first layer"));
  GatedProblem second(kDecodeGated, case_seed(kDecodeGated.name() + " second layer"));
  const std::size_t repeats = detail::repeated_launch_count();
  for (int step = 0; step < 3; ++step) {
    for (GatedProblem* p : {&first, &second}) {
      const GatedReport r = run_and_check_gated(*p);
      EXPECT_TRUE(r.passed) << "step " << step << ": " << r.text;
    }
  }
  EXPECT_EQ(detail::kept_launch_count(), 2u);
  EXPECT_EQ(detail::repeated_launch_count(), repeats + 2);
}

TEST_F(KeptLaunches, ARepeatedGemmPassesAndMatchesTheWholePathBitwise) {
  GemmProblem p(kBiasGelu, case_seed(kBiasGelu.name()));
  std::optional<KernelChoice> choice;
  bool delegated = true;
  ASSERT_TRUE(selected_kernel(p.args(), nullptr, &choice, &delegated).ok());
  ASSERT_FALSE(delegated) << kBiasGelu.name() << " no longer runs epifuse's own kernel";
  detail::keep_launches(false);
  const CheckReport whole = run_and_check(p);
  EXPECT_TRUE(whole.passed) << whole.text;
  const std::vector<std::uint8_t> whole_bits = p.d().download();
  EXPECT_EQ(detail::kept_launch_count(), 0u) << "kept while keeping was off";
  detail::keep_launches(true);
  const std::size_t repeats = detail::repeated_launch_count();
  for (int call = 0; call < 4; ++call) {
    const CheckReport r = run_and_check(p);
    EXPECT_TRUE(r.passed) << "call " << call << ": " << r.text;
    EXPECT_EQ(p.d().download(), whole_bits) << "call " << call;
  }
  EXPECT_EQ(detail::kept_launch_count(), 1u);
  EXPECT_EQ(detail::repeated_launch_count(), repeats + 2);
}

// The kept launch repeated under capture: each replay of the graph checks out.
TEST_F(KeptLaunches, AKeptLaunchReplaysFromACudaGraph) {
  GatedProblem p(kCutlassGated, case_seed(kCutlassGated.name()));
  for (int call = 0; call < 2; ++call) {
    const GatedReport eager = run_and_check_gated(p);
    ASSERT_TRUE(eager.passed) << eager.text;
  }
  ASSERT_EQ(detail::kept_launch_count(), 1u);
  const std::size_t repeats = detail::repeated_launch_count();
  expect_gated_graph_replays_pass(p);
  EXPECT_EQ(detail::repeated_launch_count(), repeats + 1) << "the captured call did not repeat the launch";
}

TEST_F(KeptLaunches, AKeptCallStillRefusesAPendingError) {
  GatedProblem p(kDecodeGated, case_seed(kDecodeGated.name()));
  ASSERT_TRUE(run_and_check_gated(p).passed);
  ASSERT_TRUE(run_and_check_gated(p).passed);
  ASSERT_EQ(detail::kept_launch_count(), 1u);
  const std::size_t repeats = detail::repeated_launch_count();
  p.poison_output();
  void* huge = nullptr;
  ASSERT_EQ(cudaMalloc(&huge, std::size_t{1} << 62), cudaErrorMemoryAllocation);  // leaves the error pending
  const Status s = gated_mlp(p.args(), nullptr);
  expect_rejected(s, StatusCode::kCudaError, "a CUDA error from earlier work is pending: cudaErrorMemoryAllocation");
  EXPECT_EQ(cudaGetLastError(), cudaErrorMemoryAllocation) << "the caller's error stays theirs to clear";
  EXPECT_EQ(detail::repeated_launch_count(), repeats);
  EPIFUSE_CHECK_CUDA(cudaDeviceSynchronize());
  for (std::uint8_t byte : p.out().download()) ASSERT_EQ(byte, p.poison_byte()) << "the refused call wrote out";
}

TEST_F(KeptLaunches, CallsThatEnqueueMoreThanTheirKernelAreNotKept) {
  const GemmCase with_amax = {1, 4096, 4096, DType::kBF16, DType::kBF16, 0, 0,
                              {.col_bias = true, .activation = Activation::kGeluTanh, .reductions = kAmax}};
  GatedCase split_k = {40, 3000, 1024, DType::kBF16, GatedActivation::kSwiGLU, false};
  split_k.kernel = "sm90_gated_mlp_bf16_bf16_swap_coop_128x128x64_c1x1_streamk";
  split_k.splits = 2;
  GemmProblem gemm_problem(with_amax, case_seed(with_amax.name()));
  GatedProblem gated_problem(split_k, case_seed(split_k.name()));
  for (int call = 0; call < 3; ++call) {
    const CheckReport g = run_and_check(gemm_problem);
    EXPECT_TRUE(g.passed) << g.text;
    const GatedReport r = run_and_check_gated(gated_problem);
    EXPECT_TRUE(r.passed) << r.text;
  }
  EXPECT_EQ(detail::kept_launch_count(), 0u);
}

}  // namespace
}  // namespace epifuse::testing

// A delegated call's first launch times cuBLASLt's candidates on the call's own operands
// (epifuse/tuning.hpp): that launch and the later ones pass the fp64 check with D's guard bands
// intact, a residual that is D itself is added once, later calls repeat one algorithm bitwise,
// with tuning on or off. The timing helper keeps the fastest candidate and skips failing ones, with
// or without its warm-up; the gate it enqueues its runs behind holds a stream until opened.
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <thread>
#include <vector>

#include <cuda_runtime_api.h>

#include "delegate/candidate_timing.hpp"
#include "kernels/stream_gate.hpp"
#include "epifuse/tuning.hpp"
#include "tests/gpu/gpu_test.hpp"

namespace epifuse::testing {
namespace {

class DelegatedTuning : public ::testing::Test {
 protected:
  void SetUp() override { EPIFUSE_REQUIRE_HOPPER(); }
  void TearDown() override { set_delegated_tuning(true); }
};

std::vector<std::uint8_t> run_and_download(GemmProblem& p) {
  p.poison_outputs();
  const Status s = gemm(p.args(), nullptr);
  EXPECT_TRUE(s.ok()) << s.to_string();
  EPIFUSE_CHECK_CUDA(cudaDeviceSynchronize());
  return p.d().download();
}

// Shapes where cuBLASLt's first candidate was not its fastest (the probe's log), with each
// residual form cuBLASLt takes; no other test plans them, so the first launch here chooses.
TEST_F(DelegatedTuning, FirstLaunchChoosesAndEveryLaunchIsCorrect) {
  ASSERT_TRUE(delegated_tuning()) << "tuning is on by default";
  const GemmCase cases[] = {
      {487, 2176, 9024, DType::kBF16, DType::kBF16, 0, 0, {}},
      {446, 2176, 8064, DType::kBF16, DType::kFP32, 0, 0, {.alpha = true, .residual = Residual::kAfterActivation}},
      {479, 1280, 8256, DType::kBF16, DType::kBF16, 0, 0, {.residual = Residual::kInPlace}},
      {1225, 640, 9280, DType::kBF16, DType::kFP32, 0, 0,  // fp32 D: cuBLASLt takes the fp32 bias
       {.col_bias = true, .activation = Activation::kReLU, .residual = Residual::kBeforeActivation}},
  };
  for (const GemmCase& c : cases) {
    GemmProblem p(c, case_seed(c.name()));
    bool delegated = false;
    std::optional<KernelChoice> choice;
    ASSERT_TRUE(selected_kernel(p.args(), nullptr, &choice, &delegated).ok());
    ASSERT_TRUE(delegated) << c.name();
    for (int launch = 0; launch < 2; ++launch) {
      const CheckReport r = run_and_check(p);
      EXPECT_TRUE(r.passed) << c.name() << ", launch " << launch << ": " << r.text;
    }
    EXPECT_TRUE(run_and_download(p) == run_and_download(p)) << c.name() << ": later launches differ";
  }
}

TEST_F(DelegatedTuning, OffRunsCublasLtsFirstCandidate) {
  set_delegated_tuning(false);
  EXPECT_FALSE(delegated_tuning());
  const GemmCase c = {483, 2176, 9024, DType::kBF16, DType::kBF16, 0, 0, {}};
  GemmProblem p(c, case_seed(c.name()));
  const CheckReport r = run_and_check(p);
  EXPECT_TRUE(r.passed) << r.text;
  EXPECT_TRUE(run_and_download(p) == run_and_download(p)) << "two calls differ";
}

// Candidates of known cost: memsets of 64 MiB and of 64 KiB; one that cannot be enqueued.
TEST_F(DelegatedTuning, TimingKeepsTheFastestAndSkipsFailures) {
  DeviceBuffer buffer(std::size_t{64} << 20);
  const std::size_t bytes[] = {std::size_t{64} << 20, std::size_t{64} << 10, std::size_t{64} << 20};
  int runs_of_failing = 0;
  const detail::CandidateTimes times = detail::time_candidates(
      4,
      [&](int i, cudaStream_t s) {
        if (i == 3) {
          ++runs_of_failing;
          return false;
        }
        return cudaMemsetAsync(buffer.data(), 0, bytes[i], s) == cudaSuccess;
      },
      nullptr);
  EXPECT_EQ(times.pick, 1);
  ASSERT_EQ(times.median_us.size(), 4u);
  EXPECT_LT(times.median_us[1], times.median_us[0]);
  EXPECT_EQ(runs_of_failing, 1) << "a failed candidate is not run again";
  EXPECT_EQ(detail::time_candidates(2, [](int, cudaStream_t) { return false; }, nullptr).pick, -1);
}

// With a warm-up (as a gated first launch that times tilings): a candidate that fails only at its
// fourth run, in the warm-up, is dropped there and not run again; the others are warmed up (far
// more runs than the timing's own), then timed; where every candidate fails, none is picked.
TEST_F(DelegatedTuning, WarmedUpTimingDropsACandidateThatFailsLater) {
  DeviceBuffer buffer(std::size_t{64} << 20);
  const std::size_t bytes[] = {std::size_t{64} << 20, std::size_t{64} << 10, std::size_t{64} << 10};
  int runs[3] = {0, 0, 0};
  const detail::CandidateTimes times = detail::time_candidates(
      3,
      [&](int i, cudaStream_t s) {
        if (++runs[i] > 3 && i == 2) return false;
        return cudaMemsetAsync(buffer.data(), 0, bytes[i], s) == cudaSuccess;
      },
      nullptr, 20.0);
  EXPECT_EQ(times.pick, 1);
  ASSERT_EQ(times.median_us.size(), 3u);
  EXPECT_LT(times.median_us[1], times.median_us[0]);
  EXPECT_TRUE(std::isinf(times.median_us[2])) << times.median_us[2];
  EXPECT_EQ(runs[2], 4) << "a failed candidate is not run again";
  EXPECT_GT(runs[1], 2 + 2 * detail::kMaxTimedRuns) << "no warm-up ran";
  EXPECT_EQ(detail::time_candidates(2, [](int, cudaStream_t) { return false; }, nullptr, 20.0).pick, -1);
}

TEST_F(DelegatedTuning, GateHoldsItsStreamUntilOpened) {
  cudaStream_t stream = nullptr;
  EPIFUSE_CHECK_CUDA(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
  DeviceBuffer buffer(4096);
  EPIFUSE_CHECK_CUDA(cudaMemsetAsync(buffer.data(), 0, 4096, stream));
  {
    detail::StreamGate gate;
    ASSERT_TRUE(gate.close(stream));
    EXPECT_FALSE(gate.close(stream)) << "closed already";
    EPIFUSE_CHECK_CUDA(cudaMemsetAsync(buffer.data(), 0x5a, 4096, stream));
    // Well under StreamGate::kMaxHoldMs: the memset behind the gate has not run.
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
    EXPECT_EQ(cudaStreamQuery(stream), cudaErrorNotReady);
    gate.open();
    gate.open();
  }
  EPIFUSE_CHECK_CUDA(cudaStreamSynchronize(stream));
  std::vector<std::uint8_t> host(4096);
  EPIFUSE_CHECK_CUDA(cudaMemcpy(host.data(), buffer.data(), host.size(), cudaMemcpyDeviceToHost));
  EXPECT_EQ(std::count(host.begin(), host.end(), std::uint8_t{0x5a}), 4096);
  {
    detail::StreamGate gate;
    ASSERT_TRUE(gate.close(stream));
  }  // the destructor opens it
  EPIFUSE_CHECK_CUDA(cudaStreamSynchronize(stream));
  EPIFUSE_CHECK_CUDA(cudaStreamDestroy(stream));
}

}  // namespace
}  // namespace epifuse::testing

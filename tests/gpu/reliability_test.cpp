// Failures that are not bad arguments: each is a Status with its cause, and nothing is written.
//   an error pending from earlier work; a launch CUDA refuses (the cause kept in the message); a
//   TMA descriptor that fails to encode; CUTLASS refusing arguments (validation bypassed here);
//   the opt-in pointer check; a stream of another device.
#include <cstdlib>
#include <vector>

#include <cuda_runtime_api.h>

#include "dispatch/registry.hpp"
#include "epifuse/tuning.hpp"
#include "tests/gpu/gpu_test.hpp"

namespace epifuse::testing {
namespace {

class Reliability : public ::testing::Test {
 protected:
  void SetUp() override { EPIFUSE_REQUIRE_HOPPER(); }
};

bool untouched(const DeviceBuffer& b) {
  for (std::uint8_t byte : b.download()) {
    if (byte != kPoisonByte) return false;
  }
  return true;
}

const GemmCase kCase = {333, 1000, 520, DType::kBF16, DType::kBF16, 0, 0,
                        {.col_bias = true, .activation = Activation::kGeluTanh, .reductions = kAmax}};

TEST_F(Reliability, AnErrorPendingFromEarlierWorkIsReported) {
  GemmProblem p(kCase, case_seed(kCase.name()));
  p.poison_outputs();
  void* huge = nullptr;
  ASSERT_EQ(cudaMalloc(&huge, std::size_t{1} << 62), cudaErrorMemoryAllocation);  // leaves the error pending
  const Status s = gemm(p.args(), nullptr);
  expect_rejected(s, StatusCode::kCudaError, "a CUDA error from earlier work is pending: cudaErrorMemoryAllocation");
  EXPECT_EQ(cudaGetLastError(), cudaErrorMemoryAllocation) << "the caller's error stays theirs to clear";
  EPIFUSE_CHECK_CUDA(cudaDeviceSynchronize());
  EXPECT_TRUE(untouched(p.d()));
  EXPECT_TRUE(untouched(*p.reduction(kAmax)));
}

// Ends a capture that an error invalidated, and clears the error.
void abandon_capture(cudaStream_t stream) {
  cudaGraph_t graph = nullptr;
  cudaStreamEndCapture(stream, &graph);
  if (graph) cudaGraphDestroy(graph);
  cudaGetLastError();
}

// CUDA refuses the launch into a stream whose graph capture an earlier error invalidated, and
// work in the legacy stream while a blocking stream captures: both Statuses carry CUDA's own
// name for why, with the step that met it, and epifuse clears the errors it reports.
TEST_F(Reliability, ALaunchFailureKeepsItsCudaCause) {
  const GemmCase c = {333, 1000, 520, DType::kBF16, DType::kBF16, 0, 0, {.col_bias = true}};
  GemmProblem p(c, case_seed(c.name()));
  p.drop_workspace();  // a whole-tile kernel: the launch is the first stream work
  p.poison_outputs();
  cudaStream_t capturing;
  EPIFUSE_CHECK_CUDA(cudaStreamCreate(&capturing));

  EPIFUSE_CHECK_CUDA(cudaStreamBeginCapture(capturing, cudaStreamCaptureModeRelaxed));
  ASSERT_NE(cudaStreamSynchronize(capturing), cudaSuccess) << "synchronizing a capturing stream invalidates its capture";
  cudaGetLastError();
  const Status invalidated = gemm(p.args(), capturing);
  EXPECT_EQ(cudaPeekAtLastError(), cudaSuccess) << "epifuse clears the errors it reports";
  abandon_capture(capturing);
  expect_rejected(invalidated, StatusCode::kCudaError, "kernel launch: cudaErrorStreamCaptureInvalidated");
  EXPECT_EQ(invalidated.message().find("no error"), std::string::npos) << invalidated.message();

  EPIFUSE_CHECK_CUDA(cudaStreamBeginCapture(capturing, cudaStreamCaptureModeRelaxed));
  const Status legacy = gemm(p.args(), nullptr);
  abandon_capture(capturing);
  expect_rejected(legacy, StatusCode::kCudaError, "cudaErrorStreamCaptureImplicit");

  EPIFUSE_CHECK_CUDA(cudaStreamDestroy(capturing));
  EPIFUSE_CHECK_CUDA(cudaDeviceSynchronize());
  EXPECT_TRUE(untouched(p.d()));
}

// The registry's launcher, called directly so that validation does not stop the call first.
detail::LaunchPlan plan_for(const KernelChoice& choice) {
  detail::LaunchPlan plan;
  EXPECT_TRUE(detail::launch_plan_for_stream(nullptr, Arch::kSm90, &plan).ok());
  plan.raster = choice.raster;
  plan.swizzle = choice.swizzle;
  return plan;
}

// Runs `broken` on the kernel dispatch chooses for `valid`, skipping validation.
Status run_unvalidated(const GemmArgs& valid, const GemmArgs& broken) {
  std::optional<KernelChoice> choice;
  EXPECT_TRUE(selected_kernel(valid, nullptr, &choice).ok());
  const detail::KernelEntry* entry = detail::find_entry(choice->key);
  return std::get<detail::Launcher<GemmArgs>>(entry->launcher).run(broken, plan_for(*choice), nullptr);
}

// TMA needs 16-byte aligned addresses; CuTe only prints when cuTensorMapEncodeTiled refuses one.
TEST_F(Reliability, ATmaDescriptorThatFailsToEncodeIsAStatus) {
  GemmProblem p(kCase, case_seed(kCase.name()));
  p.poison_outputs();
  GemmArgs misaligned = p.args();
  misaligned.A = static_cast<const char*>(misaligned.A) + 2;
  expect_rejected(run_unvalidated(p.args(), misaligned), StatusCode::kInternal, "a TMA descriptor failed to encode");
  EPIFUSE_CHECK_CUDA(cudaDeviceSynchronize());
  EXPECT_TRUE(untouched(p.d()));
  EXPECT_TRUE(untouched(*p.reduction(kAmax))) << "amax is zeroed only after the descriptors encoded";
}

// N off TMA's 16-byte rows: CUTLASS's can_implement refuses, before amax is zeroed.
TEST_F(Reliability, CutlassRefusingArgumentsWritesNothing) {
  GemmProblem p(kCase, case_seed(kCase.name()));
  p.poison_outputs();
  GemmArgs odd = p.args();
  odd.N = 999;
  expect_rejected(run_unvalidated(p.args(), odd), StatusCode::kInternal, "CUTLASS can_implement refused");
  EPIFUSE_CHECK_CUDA(cudaDeviceSynchronize());
  EXPECT_TRUE(untouched(p.d()));
  EXPECT_TRUE(untouched(*p.reduction(kAmax)));
}

class PointerCheck : public Reliability {
 protected:
  void SetUp() override {
    Reliability::SetUp();
    setenv("EPIFUSE_CHECK_POINTERS", "1", 1);
  }
  void TearDown() override { unsetenv("EPIFUSE_CHECK_POINTERS"); }
};

TEST_F(PointerCheck, RejectsHostMemory) {
  GemmProblem p(kCase, case_seed(kCase.name()));
  expect_case_passes(kCase);  // device memory passes the check
  std::vector<std::uint16_t> host_a(static_cast<std::size_t>(kCase.M * kCase.K));
  GemmArgs on_host = p.args();
  on_host.A = host_a.data();
  expect_rejected(gemm(on_host, nullptr), StatusCode::kInvalidArgument,
                  "gemm: A (EPIFUSE_CHECK_POINTERS) is host memory, not device memory");
  void* pinned = nullptr;
  EPIFUSE_CHECK_CUDA(cudaMallocHost(&pinned, static_cast<std::size_t>(kCase.N * kCase.K) * 2));
  GemmArgs on_pinned = p.args();
  on_pinned.B = pinned;
  expect_rejected(gemm(on_pinned, nullptr), StatusCode::kInvalidArgument, "B (EPIFUSE_CHECK_POINTERS) is pinned host memory");
  EPIFUSE_CHECK_CUDA(cudaFreeHost(pinned));
}

// Kernels launch on the current device; a stream of another one is refused, not launched into.
TEST_F(Reliability, AStreamOfAnotherDeviceIsRejected) {
  int devices = 0;
  EPIFUSE_CHECK_CUDA(cudaGetDeviceCount(&devices));
  if (devices < 2) GTEST_SKIP() << "needs two GPUs; this machine has " << devices;
  GemmProblem p(kCase, case_seed(kCase.name()));
  cudaStream_t other;
  EPIFUSE_CHECK_CUDA(cudaSetDevice(1));
  EPIFUSE_CHECK_CUDA(cudaStreamCreate(&other));
  EPIFUSE_CHECK_CUDA(cudaSetDevice(0));
  expect_rejected(gemm(p.args(), other), StatusCode::kInvalidArgument, "the stream belongs to device 1 but device 0 is current");
  EPIFUSE_CHECK_CUDA(cudaStreamDestroy(other));
}

}  // namespace
}  // namespace epifuse::testing

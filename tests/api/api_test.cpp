// The public API where no GPU is needed: the compiled kernels against the table, null
// out-parameters, empty calls, and what a machine without a GPU is told.
#include <algorithm>
#include <cstdint>
#include <string>

#include <cuda_runtime_api.h>
#include <gtest/gtest.h>

#include "dispatch/kernel_table.hpp"
#include "epifuse/epifuse.hpp"

namespace epifuse {
namespace {

void* fake(std::uintptr_t address) { return reinterpret_cast<void*>(address); }

GemmArgs valid_gemm() {
  GemmArgs a;
  a.M = 333;
  a.N = 1000;
  a.K = 520;
  a.A = fake(0x10000000);
  a.lda = 520;
  a.B = fake(0x20000000);
  a.ldb = 520;
  a.D = fake(0x30000000);
  a.ldd = 1000;
  return a;
}

GatedMlpArgs valid_gated() {
  GatedMlpArgs a;
  a.M = 333;
  a.N = a.w.N = 1000;
  a.w.K = a.w.ld = a.ldx = 520;
  a.x = fake(0x10000000);
  a.w.weight = fake(0x20000000);
  a.w.layout = GateUpLayout::kGateUpBlocks8;
  a.out = fake(0x30000000);
  a.ldo = 1000;
  return a;
}

bool has_gpu() {
  int count = 0;
  const bool any = cudaGetDeviceCount(&count) == cudaSuccess && count > 0;
  cudaGetLastError();
  return any;
}

TEST(CompiledKernels, AreTableRowsFoundByName) {
  const auto& table = detail::kernel_table();
  for (Op op : {Op::kGemm, Op::kGatedMlp}) {
    for (const KernelKey& k : compiled_kernels(op)) {
      EXPECT_EQ(k.op, op);
      EXPECT_NE(std::find(table.begin(), table.end(), k), table.end()) << name(k);
      const std::optional<KernelKey> found = find_kernel(name(k));
      ASSERT_TRUE(found.has_value()) << name(k);
      EXPECT_TRUE(*found == k) << name(k);
    }
  }
  EXPECT_FALSE(find_kernel("sm90_gemm_no_such_kernel").has_value());
}

TEST(OutParameters, NullIsRejected) {
  const Status a = gemm_workspace_size(valid_gemm(), nullptr, nullptr);
  EXPECT_EQ(a.code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(a.message(), "gemm_workspace_size: bytes is null");
  const Status b = gated_mlp_workspace_size(valid_gated(), nullptr, nullptr);
  EXPECT_EQ(b.message(), "gated_mlp_workspace_size: bytes is null");
  EXPECT_EQ(selected_kernel(valid_gemm(), nullptr, nullptr).message(), "selected_kernel: choice is null");
  EXPECT_EQ(selected_kernel(valid_gated(), nullptr, nullptr).message(), "selected_kernel: choice is null");
}

TEST(EmptyCalls, NeedNoGpu) {
  GemmArgs g;
  g.K = 64;
  EXPECT_TRUE(gemm(g, nullptr).ok());
  std::size_t bytes = 1;
  EXPECT_TRUE(gemm_workspace_size(g, nullptr, &bytes).ok());
  EXPECT_EQ(bytes, 0u);
  std::optional<KernelChoice> choice = KernelChoice{};
  EXPECT_TRUE(selected_kernel(g, nullptr, &choice).ok());
  EXPECT_FALSE(choice.has_value()) << "an empty call launches no kernel";
  GatedMlpArgs m = valid_gated();
  m.M = 0;
  EXPECT_TRUE(gated_mlp(m, nullptr).ok());
}

TEST(WithoutGpu, CallsSayWhy) {
  if (has_gpu()) GTEST_SKIP() << "this machine has a GPU; the message is for machines without one";
  const Status s = gemm(valid_gemm(), nullptr);
  EXPECT_EQ(s.code(), StatusCode::kCudaError);
  EXPECT_NE(s.message().find("no usable CUDA device"), std::string::npos) << s.message();
  const Status g = gated_mlp(valid_gated(), nullptr);
  EXPECT_NE(g.message().find("no usable CUDA device"), std::string::npos) << g.message();
}

}  // namespace
}  // namespace epifuse

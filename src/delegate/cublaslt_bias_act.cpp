#include "delegate/cublaslt_bias_act.hpp"

#include "kernels/bias_activation.hpp"

namespace epifuse::detail {
namespace {

// The product's row stride: 16-byte rows for the bias + activation kernel's loads.
std::int64_t product_ld(const GemmArgs& args) { return (args.N + 3) / 4 * 4; }

std::size_t product_bytes(const GemmArgs& args) {
  const std::size_t bytes = static_cast<std::size_t>(args.M) * static_cast<std::size_t>(product_ld(args)) * sizeof(float);
  return (bytes + kDelegatedWorkspaceAlignment - 1) / kDelegatedWorkspaceAlignment * kDelegatedWorkspaceAlignment;
}

// product [M, ldp] fp32 = A · Bᵀ; cuBLASLt's workspace follows the product. `product` null: a plan
// for any 256-byte aligned one.
GemmArgs product_gemm(const GemmArgs& args, void* product, std::size_t lt_workspace_bytes) {
  GemmArgs g;
  g.M = args.M;
  g.N = args.N;
  g.K = args.K;
  g.a_dtype = args.a_dtype;
  g.b_dtype = args.b_dtype;
  g.d_dtype = DType::kFP32;
  g.A = args.A;
  g.lda = args.lda;
  g.B = args.B;
  g.ldb = args.ldb;
  g.D = product;
  g.ldd = product_ld(args);
  g.workspace = product != nullptr ? static_cast<char*>(product) + product_bytes(args) : nullptr;
  g.workspace_bytes = lt_workspace_bytes;
  return g;
}

}  // namespace

bool bias_act_delegable(const GemmArgs& args) {
  if (args.kernel || args.a_scale != nullptr || args.b_scale != nullptr) return false;
  if (args.a_dtype != args.b_dtype || args.d_dtype != args.a_dtype) return false;
  if (args.d_dtype != DType::kBF16 && args.d_dtype != DType::kFP16) return false;
  return required_coverage(args.epilogue) == EpilogueCoverage::kBiasActivation;
}

DelegatedBiasActPlan plan_delegated_bias_act(const GemmArgs& args, int device, std::size_t usable_bytes) {
  DelegatedBiasActPlan plan;
  plan.product_bytes = product_bytes(args);
  plan.product = plan_delegated_product(product_gemm(args, nullptr, 0), plan.product_bytes, device, usable_bytes);
  return plan;
}

Status run_delegated_bias_act(const GemmArgs& args, const DelegatedBiasActPlan& plan, cudaStream_t stream) {
  void* product = aligned_delegated_workspace(args.workspace);
  // run_delegated_gemm aligns its workspace again: the product ends on a 256-byte boundary.
  const GemmArgs g = product_gemm(args, product, plan.product.workspace_bytes());
  if (Status s = run_delegated_gemm(g, plan.product, stream); !s.ok()) {
    return {s.code(), "gemm (delegated: the product A·Bᵀ), " + s.message()};
  }
  return bias_activation(args, static_cast<const float*>(product), product_ld(args), stream);
}

}  // namespace epifuse::detail

#include "delegate/cublaslt_gated.hpp"

#include "kernels/gated_act_mul.hpp"

namespace epifuse::detail {
namespace {

std::size_t product_bytes(const GatedMlpArgs& args) {
  const std::size_t bytes = static_cast<std::size_t>(args.M) * static_cast<std::size_t>(2 * args.N) * sizeof(float);
  return (bytes + kDelegatedWorkspaceAlignment - 1) / kDelegatedWorkspaceAlignment * kDelegatedWorkspaceAlignment;
}

// product [M, 2N] fp32 = x · Wᵀ, with the packed weight as the GEMM's B; cuBLASLt's workspace
// follows the product. `product` null: a plan for any 256-byte aligned one.
GemmArgs product_gemm(const GatedMlpArgs& args, void* product, std::size_t lt_workspace_bytes) {
  GemmArgs g;
  g.M = args.M;
  g.N = 2 * args.N;
  g.K = args.w.K;
  g.a_dtype = args.x_dtype;
  g.b_dtype = args.w.dtype;
  g.d_dtype = DType::kFP32;
  g.A = args.x;
  g.lda = args.ldx;
  g.B = args.w.weight;
  g.ldb = args.w.ld;
  g.D = product;
  g.ldd = 2 * args.N;
  g.workspace = product != nullptr ? static_cast<char*>(product) + product_bytes(args) : nullptr;
  g.workspace_bytes = lt_workspace_bytes;
  return g;
}

}  // namespace

DelegatedGatedPlan plan_delegated_gated(const GatedMlpArgs& args, int device, std::size_t usable_bytes) {
  DelegatedGatedPlan plan;
  plan.product_bytes = product_bytes(args);
  plan.product = plan_delegated_product(product_gemm(args, nullptr, 0), plan.product_bytes, device, usable_bytes);
  return plan;
}

Status run_delegated_gated(const GatedMlpArgs& args, const DelegatedGatedPlan& plan, cudaStream_t stream) {
  void* product = aligned_delegated_workspace(args.workspace);
  // run_delegated_gemm aligns its workspace again: the product ends on a 256-byte boundary.
  const GemmArgs g = product_gemm(args, product, plan.product.workspace_bytes());
  if (Status s = run_delegated_gemm(g, plan.product, stream); !s.ok()) {
    return {s.code(), "gated_mlp (delegated: the product x·Wᵀ), " + s.message()};
  }
  return gated_act_mul(args, static_cast<const float*>(product), stream);
}

}  // namespace epifuse::detail

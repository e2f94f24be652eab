// The epifuse op library for PyTorch: schemas, the CUDA kernels, and two guards every op shares —
// CPU tensors and autograd raise an error that says what to do instead.
#include <string>

#include <ATen/core/dispatch/Dispatcher.h>
#include <ATen/core/LegacyTypeDispatch.h>
#include <c10/core/GradMode.h>
#include <torch/library.h>

#include "ops.hpp"

namespace epifuse::torch_ops {
namespace {

std::string op_name(const c10::OperatorHandle& op) {
  return "epifuse." + op.schema().name().substr(std::string("epifuse::").size());
}

// CPU dispatch: every op needs a CUDA device.
void refuse_cpu(const c10::OperatorHandle& op, torch::jit::Stack*) {
  TORCH_CHECK_VALUE(false, op_name(op), ": the tensors are on the CPU; epifuse runs on a CUDA device");
}

// Autograd dispatch: the ops have no backward, so a call that would record one is refused.
void inference_only(const c10::OperatorHandle& op, c10::DispatchKeySet keys, torch::jit::Stack* stack) {
  if (c10::GradMode::is_enabled()) {
    const auto arguments = torch::jit::last(*stack, op.schema().arguments().size());
    for (const c10::IValue& value : arguments) {
      TORCH_CHECK(!(value.isTensor() && value.toTensor().requires_grad()), op_name(op),
                  " is inference only and an input requires grad; call it under torch.no_grad() or "
                  "torch.inference_mode()");
    }
  }
  at::AutoDispatchBelowADInplaceOrView below_autograd;
  op.redispatchBoxed(keys & c10::after_autograd_keyset, stack);
}

// Every op of the library, for the dispatch keys that treat them all alike.
constexpr const char* kOpNames[] = {"gemm",    "gated_mlp",    "grouped_gated_mlp", "grouped_gemm",
                                    "moe_mlp", "pack_gate_up", "unpack_gate_up"};

}  // namespace

TORCH_LIBRARY(epifuse, m) {
  const std::vector<at::Tag> tags = {at::Tag::pt2_compliant_tag};
  m.def(
      "gemm(Tensor x, Tensor weight, Tensor? bias=None, str activation=\"identity\", float alpha=1.0, "
      "Tensor? residual=None, float beta=1.0, ScalarType? out_dtype=None) -> Tensor",
      tags);
  m.def(
      "gated_mlp(Tensor x, Tensor packed_weight, Tensor? packed_bias, int layout, str activation=\"swiglu\", "
      "float? limit=None, float scale=1.0) -> Tensor",
      tags);
  m.def(
      "grouped_gated_mlp(Tensor x, Tensor packed_weights, Tensor? packed_biases, Tensor expert_offsets, int layout, "
      "str activation=\"swiglu\", float? limit=None, float scale=1.0, int max_expert_rows=0) -> Tensor",
      tags);
  m.def("grouped_gemm(Tensor x, Tensor weights, Tensor expert_offsets, int max_expert_rows=0) -> Tensor", tags);
  m.def(
      "moe_mlp(Tensor x, Tensor topk_ids, Tensor topk_weights, Tensor packed_gate_up, Tensor down, int layout, "
      "str activation=\"swiglu\", float? limit=None, float scale=1.0, Tensor? add=None) -> Tensor",
      tags);
  m.def("pack_gate_up(Tensor gate, Tensor up, Tensor? gate_bias=None, Tensor? up_bias=None) -> Tensor[]", tags);
  m.def("unpack_gate_up(Tensor packed_weight, Tensor? packed_bias, int layout) -> Tensor[]", tags);
}

TORCH_LIBRARY_IMPL(epifuse, CUDA, m) {
  m.impl("gemm", &gemm);
  m.impl("gated_mlp", &gated_mlp);
  m.impl("grouped_gated_mlp", &grouped_gated_mlp);
  m.impl("grouped_gemm", &grouped_gemm);
  m.impl("moe_mlp", &moe_mlp);
  m.impl("pack_gate_up", &pack_gate_up);
  m.impl("unpack_gate_up", &unpack_gate_up);
}

TORCH_LIBRARY_IMPL(epifuse, CPU, m) {
  for (const char* name : kOpNames) {
    m.impl(name, torch::CppFunction::makeFromBoxedFunction<&refuse_cpu>());
  }
}

TORCH_LIBRARY_IMPL(epifuse, Autograd, m) {
  for (const char* name : kOpNames) {
    m.impl(name, torch::CppFunction::makeFromBoxedFunction<&inference_only>());
  }
}

}  // namespace epifuse::torch_ops

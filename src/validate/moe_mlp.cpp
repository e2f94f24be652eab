// validate_moe_mlp_args: every rule of include/epifuse/moe_mlp.hpp, checked on the host before any
// launch. They imply the rules of the grouped calls moe_mlp makes inside (api/moe_mlp.cpp checks
// those again, with the workspace's pointers, before its first launch).
#include <string>

#include "epifuse/moe_mlp.hpp"
#include "validate/operand_rules.hpp"

namespace epifuse {
namespace {

using detail::ByteRange;
using detail::ByteRanges;

constexpr const char* kOp = "moe_mlp";

Status invalid(const std::string& message) { return detail::invalid(kOp, message); }

Status check_sizes(const MoeMlpArgs& a) {
  for (Status s : {detail::check_extent(kOp, "T", a.tokens), detail::check_extent(kOp, "experts", a.experts),
                   detail::check_extent(kOp, "T·k", a.tokens * a.topk)}) {
    if (!s.ok()) return s;
  }
  if (a.experts < 1) return invalid("experts (" + std::to_string(a.experts) + ") must be >= 1");
  if (a.topk < 1 || a.topk > a.experts) {
    return invalid("k (" + std::to_string(a.topk) + ") must be in [1, experts = " + std::to_string(a.experts) + "]");
  }
  if (a.dtype != DType::kBF16 && a.dtype != DType::kFP16) {
    return Status::not_supported(std::string("moe_mlp: dtype ") + to_string(a.dtype) + " is not compiled; bf16 or fp16");
  }
  const PackedGateUp& w = a.gate_up;
  if (w.layout != GateUpLayout::kGateUpBlocks8) return invalid("gate_up is not packed: pack it with pack_gate_up");
  if (w.dtype != a.dtype) {
    return invalid(std::string("gate_up's dtype (") + to_string(w.dtype) + ") is not the layer's (" +
                   to_string(a.dtype) + ")");
  }
  if (w.bias != nullptr) return invalid("gate_up.bias must be null: the layer takes no expert biases");
  if (w.N <= 0 || w.N % 8 != 0 || w.N > detail::kMaxExtent / 2) {
    return invalid("N (" + std::to_string(w.N) + ") must be a positive multiple of 8 below 2^30");
  }
  if (w.K <= 0 || w.K % 8 != 0 || w.K > detail::kMaxExtent) {
    return invalid("K (" + std::to_string(w.K) + ") must be a positive multiple of 8 below 2^31");
  }
  if (w.ld != w.K) return invalid("gate_up.ld (" + std::to_string(w.ld) + ") must equal K (" + std::to_string(w.K) + ")");
  if (a.gate_up_stride < 2 * w.N * w.K || a.gate_up_stride % 8 != 0) {
    return invalid("gate_up_stride (" + std::to_string(a.gate_up_stride) +
                   ") must be a multiple of 8 and at least one packed weight, 2N·K = " + std::to_string(2 * w.N * w.K));
  }
  if (a.down_stride < w.K * w.N || a.down_stride % 8 != 0) {
    return invalid("down_stride (" + std::to_string(a.down_stride) +
                   ") must be a multiple of 8 and at least one down weight, K·N = " + std::to_string(w.K * w.N));
  }
  for (Status s : {detail::check_leading_dim(kOp, "ldx", a.ldx, "K", w.K, a.dtype),
                   detail::check_leading_dim(kOp, "ldy", a.ldy, "K", w.K, a.dtype)}) {
    if (!s.ok()) return s;
  }
  if (a.add != nullptr) {
    if (Status s = detail::check_leading_dim(kOp, "ld_add", a.ld_add, "K", w.K, a.dtype); !s.ok()) return s;
  }
  return Status::success();
}

Status check_values(const MoeMlpArgs& a) {
  if (!(a.limit > 0.0f)) return invalid("limit must be > 0 (infinity: no clamp)");
  if (Status s = detail::check_finite(kOp, "scale", a.scale); !s.ok()) return s;
  switch (a.activation) {
    case GatedActivation::kSwiGLU:
    case GatedActivation::kGeGLUTanh:
    case GatedActivation::kGeGLUErf:
    case GatedActivation::kReGLU: return Status::success();
  }
  return invalid("activation " + std::to_string(static_cast<int>(a.activation)) + " is not a GatedActivation");
}

Status check_pointers(const MoeMlpArgs& a) {
  for (Status s : {detail::check_pointer(kOp, "x", a.x, 16), detail::check_pointer(kOp, "topk_ids", a.topk_ids, 4),
                   detail::check_pointer(kOp, "topk_weights", a.topk_weights, 4),
                   detail::check_pointer(kOp, "gate_up.weight", a.gate_up.weight, 16),
                   detail::check_pointer(kOp, "down", a.down, 16), detail::check_pointer(kOp, "y", a.y, 16)}) {
    if (!s.ok()) return s;
  }
  if (a.add != nullptr) {
    if (Status s = detail::check_pointer(kOp, "add", a.add, 16); !s.ok()) return s;
  }
  if (a.dropped != nullptr) {
    if (Status s = detail::check_pointer(kOp, "dropped", a.dropped, 4); !s.ok()) return s;
  }
  return Status::success();
}

// y and dropped against every input and the workspace; add may be y itself.
Status check_aliasing(const MoeMlpArgs& a) {
  const std::int64_t N = a.gate_up.N, K = a.gate_up.K;
  const std::size_t element = dtype_bytes(a.dtype);
  const auto experts = static_cast<std::uint64_t>(a.experts);
  const auto pairs = static_cast<std::uint64_t>(a.tokens * a.topk);
  ByteRange y, x, ids, weights, gate_up, down;
  for (Status s : {detail::matrix_range(kOp, "y", a.y, a.tokens, K, a.ldy, element, &y),
                   detail::matrix_range(kOp, "x", a.x, a.tokens, K, a.ldx, element, &x),
                   detail::bytes_range(kOp, "topk_ids", a.topk_ids, pairs * 4, &ids),
                   detail::bytes_range(kOp, "topk_weights", a.topk_weights, pairs * 4, &weights),
                   detail::bytes_range(kOp, "the gate/up weights", a.gate_up.weight,
                                       ((experts - 1) * static_cast<std::uint64_t>(a.gate_up_stride) +
                                        2 * static_cast<std::uint64_t>(N * K)) * element,
                                       &gate_up),
                   detail::bytes_range(kOp, "the down weights", a.down,
                                       ((experts - 1) * static_cast<std::uint64_t>(a.down_stride) +
                                        static_cast<std::uint64_t>(N * K)) * element,
                                       &down)}) {
    if (!s.ok()) return s;
  }
  ByteRanges outputs = {y}, inputs = {x, ids, weights, gate_up, down};
  if (a.add != nullptr && a.add != a.y) {
    ByteRange add;
    if (Status s = detail::matrix_range(kOp, "add", a.add, a.tokens, K, a.ld_add, element, &add); !s.ok()) return s;
    inputs.push_back(add);
  } else if (a.add == a.y && a.ld_add != a.ldy) {
    return invalid("add is y (in place) with ld_add (" + std::to_string(a.ld_add) + ") != ldy (" +
                   std::to_string(a.ldy) + ")");
  }
  if (a.dropped != nullptr) {
    ByteRange dropped;
    if (Status s = detail::bytes_range(kOp, "dropped", a.dropped, 4, &dropped); !s.ok()) return s;
    outputs.push_back(dropped);
  }
  if (a.workspace != nullptr && a.workspace_bytes > 0) {
    ByteRange workspace;
    if (Status s = detail::bytes_range(kOp, "the workspace", a.workspace, a.workspace_bytes, &workspace); !s.ok()) {
      return s;
    }
    outputs.push_back(workspace);
  }
  return detail::check_disjoint(kOp, outputs, inputs);
}

}  // namespace

Status validate_moe_mlp_args(const MoeMlpArgs& args) {
  for (auto check : {check_sizes, check_values, check_pointers}) {
    if (Status s = check(args); !s.ok()) return s;
  }
  if (args.tokens == 0) return Status::success();
  return check_aliasing(args);
}

}  // namespace epifuse

// validate_gated_mlp_args: every rule of include/epifuse/gated_mlp.hpp, checked on the host before
// any launch, with a message naming the offending argument and its value.
#include <cstdio>
#include <string>

#include "epifuse/gated_mlp.hpp"
#include "validate/operand_rules.hpp"

namespace epifuse {
namespace {

using detail::ByteRange;
using detail::ByteRanges;

constexpr const char* kOp = "gated_mlp";

Status invalid(const std::string& message) { return detail::invalid(kOp, message); }

std::string hex(std::uint32_t v) {
  char buf[16];
  std::snprintf(buf, sizeof buf, "0x%08x", static_cast<unsigned>(v));
  return buf;
}

Status check_weight(const GatedMlpArgs& args) {
  const PackedGateUp& w = args.w;
  if (w.layout != GateUpLayout::kGateUpBlocks8) {
    return invalid("the weight's layout tag (" + hex(static_cast<std::uint32_t>(w.layout)) +
                   ") is not kGateUpBlocks8: pack it with pack_gate_up");
  }
  if (w.N <= 0 || w.N % 8 != 0) return invalid("N (" + std::to_string(w.N) + ") must be a positive multiple of 8");
  if (w.N > detail::kMaxExtent / 2) return invalid("2N must be < 2^31, got N = " + std::to_string(w.N));
  if (w.K <= 0 || w.K % 8 != 0) return invalid("K (" + std::to_string(w.K) + ") must be a positive multiple of 8");
  if (args.N != w.N) {
    return invalid("N (" + std::to_string(args.N) + ") does not match the packed weight's N (" + std::to_string(w.N) +
                   ")");
  }
  for (Status s : {detail::check_extent(kOp, "M", args.M), detail::check_extent(kOp, "K", w.K)}) {
    if (!s.ok()) return s;
  }
  if (w.ld != w.K) return invalid("the packed weight's ld (" + std::to_string(w.ld) + ") must equal K (" + std::to_string(w.K) + ")");
  const bool same = args.x_dtype == w.dtype && args.out_dtype == w.dtype;
  if (!same || (w.dtype != DType::kBF16 && w.dtype != DType::kFP16)) {
    return Status::not_supported(std::string("gated_mlp: x ") + to_string(args.x_dtype) + ", weight " +
                                 to_string(w.dtype) + ", out " + to_string(args.out_dtype) +
                                 " is not compiled; supported: all bf16 or all fp16");
  }
  return Status::success();
}

Status check_values(const GatedMlpArgs& args) {
  if (!(args.limit > 0.0f)) return invalid("limit must be > 0 (infinity: no clamp)");
  if (Status s = detail::check_finite(kOp, "scale", args.scale); !s.ok()) return s;
  switch (args.activation) {
    case GatedActivation::kSwiGLU:
    case GatedActivation::kGeGLUTanh:
    case GatedActivation::kGeGLUErf:
    case GatedActivation::kReGLU: return Status::success();
  }
  return invalid("activation " + std::to_string(static_cast<int>(args.activation)) + " is not a GatedActivation");
}

Status check_operands(const GatedMlpArgs& args) {
  const PackedGateUp& w = args.w;
  for (Status s : {detail::check_pointer(kOp, "x", args.x, 16), detail::check_pointer(kOp, "the weight", w.weight, 16),
                   detail::check_pointer(kOp, "out", args.out, 16),
                   detail::check_leading_dim(kOp, "ldx", args.ldx, "K", w.K, args.x_dtype),
                   detail::check_leading_dim(kOp, "ldo", args.ldo, "N", w.N, args.out_dtype)}) {
    if (!s.ok()) return s;
  }
  if (w.bias != nullptr) {
    if (Status s = detail::check_pointer(kOp, "the bias", w.bias, sizeof(float)); !s.ok()) return s;
  }
  return Status::success();
}

Status check_aliasing(const GatedMlpArgs& args) {
  const PackedGateUp& w = args.w;
  ByteRange x, weight, out;
  for (Status s : {detail::matrix_range(kOp, "x", args.x, args.M, w.K, args.ldx, dtype_bytes(args.x_dtype), &x),
                   detail::matrix_range(kOp, "the weight", w.weight, 2 * w.N, w.K, w.ld, dtype_bytes(w.dtype), &weight),
                   detail::matrix_range(kOp, "out", args.out, args.M, w.N, args.ldo, dtype_bytes(args.out_dtype), &out)}) {
    if (!s.ok()) return s;
  }
  ByteRanges inputs = {x, weight}, outputs = {out};
  if (w.bias != nullptr) {
    ByteRange bias;
    if (Status s = detail::bytes_range(kOp, "the bias", w.bias, 2 * static_cast<std::uint64_t>(w.N) * sizeof(float), &bias);
        !s.ok()) {
      return s;
    }
    inputs.push_back(bias);
  }
  if (args.workspace != nullptr && args.workspace_bytes > 0) {
    ByteRange workspace;
    if (Status s = detail::bytes_range(kOp, "the workspace", args.workspace, args.workspace_bytes, &workspace); !s.ok()) {
      return s;
    }
    outputs.push_back(workspace);
  }
  return detail::check_disjoint(kOp, outputs, inputs);
}

}  // namespace

Status validate_gated_mlp_args(const GatedMlpArgs& args) {
  if (Status s = check_weight(args); !s.ok()) return s;
  if (Status s = check_values(args); !s.ok()) return s;
  if (args.M == 0) return Status::success();
  if (Status s = check_operands(args); !s.ok()) return s;
  return check_aliasing(args);
}

}  // namespace epifuse

// validate_grouped_gated_mlp_args: every rule of include/epifuse/grouped_gated_mlp.hpp, checked on
// the host before any launch. The rules of the call over all T rows are gated_mlp's own.
#include <string>

#include "epifuse/grouped_gated_mlp.hpp"
#include "validate/operand_rules.hpp"

namespace epifuse {
namespace {

using detail::ByteRange;
using detail::ByteRanges;

constexpr const char* kOp = "grouped_gated_mlp";

Status invalid(const std::string& message) { return detail::invalid(kOp, message); }

Status check_grouping(const GroupedGatedMlpArgs& args) {
  const PackedGateUp& w = args.gated.w;
  if (args.experts < 1) return invalid("experts (" + std::to_string(args.experts) + ") must be >= 1");
  if (Status s = detail::check_extent(kOp, "experts", args.experts); !s.ok()) return s;
  if (Status s = detail::check_pointer(kOp, "expert_offsets", args.expert_offsets, sizeof(std::int32_t)); !s.ok()) {
    return s;
  }
  if (args.weight_stride < 2 * w.N * w.K || args.weight_stride % 8 != 0) {
    return invalid("weight_stride (" + std::to_string(args.weight_stride) +
                   ") must be a multiple of 8 and at least one packed weight, 2N·K = " + std::to_string(2 * w.N * w.K));
  }
  if (args.max_expert_rows < 0) {
    return invalid("max_expert_rows (" + std::to_string(args.max_expert_rows) + ") must be >= 0 (0: unknown)");
  }
  if (w.bias != nullptr && args.bias_stride < 2 * w.N) {
    return invalid("bias_stride (" + std::to_string(args.bias_stride) + ") must be at least one packed bias, 2N = " +
                   std::to_string(2 * w.N));
  }
  if (args.gated.kernel && args.gated.kernel->key.grouping != Grouping::kGrouped) {
    return invalid("forced kernel '" + name(args.gated.kernel->key) + "' is not a grouped kernel");
  }
  return Status::success();
}

// Every expert's weight (and bias) against out and the workspace, which the call writes.
Status check_aliasing(const GroupedGatedMlpArgs& args) {
  const GatedMlpArgs& g = args.gated;
  const PackedGateUp& w = g.w;
  const std::uint64_t element = dtype_bytes(w.dtype);
  const auto experts = static_cast<std::uint64_t>(args.experts);
  ByteRange out, weights, offsets;
  for (Status s :
       {detail::matrix_range(kOp, "out", g.out, g.M, w.N, g.ldo, dtype_bytes(g.out_dtype), &out),
        detail::bytes_range(kOp, "the weights", w.weight,
                            ((experts - 1) * static_cast<std::uint64_t>(args.weight_stride) +
                             2 * static_cast<std::uint64_t>(w.N) * static_cast<std::uint64_t>(w.K)) * element,
                            &weights),
        detail::bytes_range(kOp, "expert_offsets", args.expert_offsets, (experts + 1) * sizeof(std::int32_t), &offsets)}) {
    if (!s.ok()) return s;
  }
  ByteRanges inputs = {weights, offsets}, outputs = {out};
  if (w.bias != nullptr) {
    ByteRange bias;
    const std::uint64_t floats = (experts - 1) * static_cast<std::uint64_t>(args.bias_stride) + 2 * static_cast<std::uint64_t>(w.N);
    if (Status s = detail::bytes_range(kOp, "the biases", w.bias, floats * sizeof(float), &bias); !s.ok()) return s;
    inputs.push_back(bias);
  }
  if (g.workspace != nullptr && g.workspace_bytes > 0) {
    ByteRange workspace;
    if (Status s = detail::bytes_range(kOp, "the workspace", g.workspace, g.workspace_bytes, &workspace); !s.ok()) {
      return s;
    }
    outputs.push_back(workspace);
  }
  return detail::check_disjoint(kOp, outputs, inputs);
}

}  // namespace

Status validate_grouped_gated_mlp_args(const GroupedGatedMlpArgs& args) {
  GatedMlpArgs all_rows = args.gated;
  all_rows.kernel.reset();  // a grouped kernel is checked here, not as a gated_mlp one
  if (Status s = validate_gated_mlp_args(all_rows); !s.ok()) {
    return Status(s.code(), "grouped_gated_mlp: over all T rows, " + s.message());
  }
  if (Status s = check_grouping(args); !s.ok()) return s;
  if (args.gated.M == 0) return Status::success();
  return check_aliasing(args);
}

}  // namespace epifuse

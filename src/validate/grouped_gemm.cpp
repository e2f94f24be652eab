// validate_grouped_gemm_args: every rule of include/epifuse/grouped_gemm.hpp, checked on the host
// before any launch. The rules of the call over all T rows are gemm's own.
#include <string>

#include "epifuse/grouped_gemm.hpp"
#include "validate/operand_rules.hpp"

namespace epifuse {
namespace {

using detail::ByteRange;
using detail::ByteRanges;

constexpr const char* kOp = "grouped_gemm";

Status invalid(const std::string& message) { return detail::invalid(kOp, message); }

Status check_grouping(const GroupedGemmArgs& args) {
  const GemmArgs& g = args.gemm;
  if (required_coverage(g.epilogue) != EpilogueCoverage::kCastOnly) {
    return invalid("the epilogue must be the cast alone (alpha 1, no operand, identity, no reduction); this one needs " +
                   std::string(to_string(required_coverage(g.epilogue))));
  }
  if (args.experts < 1) return invalid("experts (" + std::to_string(args.experts) + ") must be >= 1");
  if (Status s = detail::check_extent(kOp, "experts", args.experts); !s.ok()) return s;
  if (Status s = detail::check_pointer(kOp, "expert_offsets", args.expert_offsets, sizeof(std::int32_t)); !s.ok()) {
    return s;
  }
  const std::int64_t per_16_bytes = 16 / static_cast<std::int64_t>(dtype_bytes(g.b_dtype));
  if (args.weight_stride < g.N * g.ldb || args.weight_stride % per_16_bytes != 0) {
    return invalid("weight_stride (" + std::to_string(args.weight_stride) + ") must be a multiple of " +
                   std::to_string(per_16_bytes) + " and at least one weight, N·ldb = " + std::to_string(g.N * g.ldb));
  }
  if (args.max_expert_rows < 0) {
    return invalid("max_expert_rows (" + std::to_string(args.max_expert_rows) + ") must be >= 0 (0: unknown)");
  }
  if (g.kernel && g.kernel->key.grouping != Grouping::kGrouped) {
    return invalid("forced kernel '" + name(g.kernel->key) + "' is not a grouped kernel");
  }
  return Status::success();
}

// Every expert's weight, and the offsets, against D and the workspace, which the call writes.
Status check_aliasing(const GroupedGemmArgs& args) {
  const GemmArgs& g = args.gemm;
  const auto experts = static_cast<std::uint64_t>(args.experts);
  ByteRange d, weights, offsets;
  for (Status s :
       {detail::matrix_range(kOp, "D", g.D, g.M, g.N, g.ldd, dtype_bytes(g.d_dtype), &d),
        detail::bytes_range(kOp, "the weights", g.B,
                            ((experts - 1) * static_cast<std::uint64_t>(args.weight_stride) +
                             static_cast<std::uint64_t>(g.N) * static_cast<std::uint64_t>(g.ldb)) *
                                dtype_bytes(g.b_dtype),
                            &weights),
        detail::bytes_range(kOp, "expert_offsets", args.expert_offsets, (experts + 1) * sizeof(std::int32_t), &offsets)}) {
    if (!s.ok()) return s;
  }
  ByteRanges outputs = {d};
  if (g.workspace != nullptr && g.workspace_bytes > 0) {
    ByteRange workspace;
    if (Status s = detail::bytes_range(kOp, "the workspace", g.workspace, g.workspace_bytes, &workspace); !s.ok()) {
      return s;
    }
    outputs.push_back(workspace);
  }
  return detail::check_disjoint(kOp, outputs, {weights, offsets});
}

}  // namespace

Status validate_grouped_gemm_args(const GroupedGemmArgs& args) {
  GemmArgs all_rows = args.gemm;
  all_rows.kernel.reset();  // a grouped kernel is checked here, not as a gemm one
  if (Status s = validate_gemm_args(all_rows); !s.ok()) {
    return Status(s.code(), "grouped_gemm: over all T rows, " + s.message());
  }
  if (Status s = check_grouping(args); !s.ok()) return s;
  if (args.gemm.M == 0 || args.gemm.N == 0) return Status::success();
  return check_aliasing(args);
}

}  // namespace epifuse

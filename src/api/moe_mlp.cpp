// Public entry points of the MoE layer: the workspace's layout, then on the stream the permute
// (moe/routing.hpp), the grouped gated MLP over the sorted rows, the grouped down GEMM, and the
// combine.
#include "epifuse/moe_mlp.hpp"

#include <algorithm>
#include <string>
#include <vector>

#include "api/grouped_call.hpp"
#include "epifuse/grouped_gated_mlp.hpp"
#include "epifuse/grouped_gemm.hpp"
#include "moe/routing.hpp"
#include "validate/pointer_check.hpp"

namespace epifuse {
namespace {

constexpr const char* kOp = "moe_mlp";

std::size_t aligned(std::size_t bytes) { return (bytes + 255) / 256 * 256; }

// The workspace: the routing arrays, the sort's scratch, x gathered [P, K], the gated
// activations [P, N], the experts' outputs [P, K], then what the grouped launches need (they run
// one after another and share it). Offsets in bytes; pointers null for a size query.
struct Layout {
  detail::MoeRouting routing;
  void* x_sorted = nullptr;
  void* activations = nullptr;
  void* expert_out = nullptr;
  void* grouped = nullptr;
  std::size_t grouped_offset = 0;
};

Status layout(const MoeMlpArgs& a, void* base, Layout* l) {
  const auto pairs = static_cast<std::size_t>(a.tokens * a.topk);
  const std::size_t element = dtype_bytes(a.dtype);
  std::size_t sort_bytes = 0;
  if (Status s = detail::moe_sort_temp_bytes(a.tokens * a.topk, a.experts, &sort_bytes); !s.ok()) return s;
  std::size_t offset = 0;
  auto take = [&](std::size_t bytes) {
    void* p = base != nullptr ? static_cast<char*>(base) + offset : nullptr;
    offset += aligned(bytes);
    return p;
  };
  detail::MoeRouting& r = l->routing;
  r.keys = static_cast<std::int32_t*>(take(pairs * 4));
  r.sorted_keys = static_cast<std::int32_t*>(take(pairs * 4));
  r.pairs = static_cast<std::int32_t*>(take(pairs * 4));
  r.sorted_pairs = static_cast<std::int32_t*>(take(pairs * 4));
  r.sort_temp = take(sort_bytes);
  r.sort_temp_bytes = sort_bytes;
  r.offsets = static_cast<std::int32_t*>(take((static_cast<std::size_t>(a.experts) + 1) * 4));
  r.rows = static_cast<std::int32_t*>(take(pairs * 4));
  l->x_sorted = take(pairs * a.gate_up.K * element);
  l->activations = take(pairs * a.gate_up.N * element);
  l->expert_out = take(pairs * a.gate_up.K * element);
  l->grouped_offset = offset;
  l->grouped = base != nullptr ? static_cast<char*>(base) + offset : nullptr;
  return Status::success();
}

// The grouped calls over the sorted rows, with the workspace's pointers (null for a size query).
GroupedGatedMlpArgs gated_call(const MoeMlpArgs& a, const Layout& l, std::size_t grouped_bytes) {
  GroupedGatedMlpArgs g;
  const std::int64_t P = a.tokens * a.topk;
  g.gated.M = P;
  g.gated.N = a.gate_up.N;
  g.gated.x_dtype = g.gated.out_dtype = a.dtype;
  g.gated.x = l.x_sorted;
  g.gated.ldx = a.gate_up.K;
  g.gated.w = a.gate_up;
  g.gated.out = l.activations;
  g.gated.ldo = a.gate_up.N;
  g.gated.activation = a.activation;
  g.gated.limit = a.limit;
  g.gated.scale = a.scale;
  g.gated.workspace = l.grouped;
  g.gated.workspace_bytes = grouped_bytes;
  g.experts = a.experts;
  g.expert_offsets = l.routing.offsets;
  g.weight_stride = a.gate_up_stride;
  g.max_expert_rows = a.tokens;  // one row per token, unless a token repeats an expert
  return g;
}

GroupedGemmArgs down_call(const MoeMlpArgs& a, const Layout& l, std::size_t grouped_bytes) {
  GroupedGemmArgs d;
  GemmArgs& g = d.gemm;
  g.M = a.tokens * a.topk;
  g.N = a.gate_up.K;
  g.K = a.gate_up.N;
  g.a_dtype = g.b_dtype = g.d_dtype = a.dtype;
  g.A = l.activations;
  g.lda = a.gate_up.N;
  g.B = a.down;
  g.ldb = a.gate_up.N;
  g.D = l.expert_out;
  g.ldd = a.gate_up.K;
  g.workspace = l.grouped;
  g.workspace_bytes = grouped_bytes;
  d.experts = a.experts;
  d.expert_offsets = l.routing.offsets;
  d.weight_stride = a.down_stride;
  d.max_expert_rows = a.tokens;
  return d;
}

// The workspace's layout, the two grouped calls' launches and the bytes they all need.
struct Plan {
  const detail::DeviceCaps* caps = nullptr;
  Layout layout;
  std::vector<detail::GroupedPart<GroupedGatedMlpArgs>> gated;
  std::vector<detail::GroupedPart<GroupedGemmArgs>> down;
  std::size_t bytes = 0;
};

// For validated args with T > 0, the workspace at `base` (null for a size query).
Status plan(const MoeMlpArgs& a, cudaStream_t stream, void* base, Plan* p) {
  if (Status s = detail::stream_device_caps(stream, &p->caps); !s.ok()) return s;
  const detail::DeviceCaps* caps = p->caps;
  if (Status s = layout(a, base, &p->layout); !s.ok()) return s;
  std::size_t gated_bytes = 0, down_bytes = 0;
  if (Status s = detail::plan_grouped_on("moe_mlp (gate/up)", gated_call(a, p->layout, 0), *caps, &p->gated,
                                         &gated_bytes);
      !s.ok()) {
    return s;
  }
  if (Status s = detail::plan_grouped_on("moe_mlp (down)", down_call(a, p->layout, 0), *caps, &p->down, &down_bytes);
      !s.ok()) {
    return s;
  }
  p->bytes = p->layout.grouped_offset + std::max(gated_bytes, down_bytes);
  return Status::success();
}

}  // namespace

Status moe_mlp_workspace_size(const MoeMlpArgs& args, cudaStream_t stream, std::size_t* bytes) {
  if (bytes == nullptr) return Status::invalid_argument("moe_mlp_workspace_size: bytes is null");
  *bytes = 0;
  if (Status s = validate_moe_mlp_args(args); !s.ok() || args.tokens == 0) return s;
  Plan p;
  if (Status s = plan(args, stream, nullptr, &p); !s.ok()) return s;
  *bytes = p.bytes;
  return Status::success();
}

Status moe_mlp(const MoeMlpArgs& args, cudaStream_t stream) {
  if (Status s = validate_moe_mlp_args(args); !s.ok()) return s;
  if (args.tokens == 0) {
    if (args.dropped == nullptr) return Status::success();
    if (cudaError_t err = cudaMemsetAsync(args.dropped, 0, sizeof(std::int32_t), stream); err != cudaSuccess) {
      return Status(StatusCode::kCudaError, std::string("moe_mlp: clearing dropped: ") + cudaGetErrorString(err));
    }
    return Status::success();
  }
  Plan p;
  if (Status s = plan(args, stream, args.workspace, &p); !s.ok()) return s;
  if (Status s = detail::check_workspace(kOp, p.bytes, args.workspace, args.workspace_bytes); !s.ok()) return s;
  const Layout& l = p.layout;
  const std::size_t grouped_bytes = args.workspace_bytes - l.grouped_offset;
  const GroupedGatedMlpArgs gated = gated_call(args, l, grouped_bytes);
  const GroupedGemmArgs down = down_call(args, l, grouped_bytes);
  // Checked before the first launch, so that a refusal launches nothing.
  for (Status s : {validate_grouped_gated_mlp_args(gated), validate_grouped_gemm_args(down)}) {
    if (!s.ok()) return Status(s.code(), "moe_mlp: " + s.message());
  }
  if (detail::pointer_check_enabled()) {
    for (const auto& pointers : {detail::operand_pointers(gated), detail::operand_pointers(down)}) {
      if (Status s = detail::check_device_pointers(kOp, pointers, p.caps->device); !s.ok()) return s;
    }
  }
  const std::int64_t K = args.gate_up.K;
  if (Status s = detail::moe_permute(l.routing, args.topk_ids, args.tokens, args.topk, args.experts, args.x, args.ldx,
                                     K, args.dtype, l.x_sorted, args.dropped, stream);
      !s.ok()) {
    return s;
  }
  if (Status s = detail::run_grouped(p.gated, gated, stream); !s.ok()) return s;
  if (Status s = detail::run_grouped(p.down, down, stream); !s.ok()) return s;
  return detail::moe_combine(l.expert_out, K, l.routing.rows, args.topk_weights, args.tokens, args.topk, args.add,
                             args.ld_add, args.y, args.ldy, args.dtype, stream);
}

}  // namespace epifuse

// Public entry points of the grouped gated MLP: validate, read the stream's device, choose a
// grouped kernel, check the workspace, launch (the setup kernel, then the grouped kernel).
#include "epifuse/grouped_gated_mlp.hpp"

#include "api/call.hpp"

namespace epifuse {
namespace {

constexpr const char* kOp = "grouped_gated_mlp";

}  // namespace

namespace detail {

std::vector<NamedPointer> operand_pointers(const GroupedGatedMlpArgs& a) {
  std::vector<NamedPointer> pointers = operand_pointers(a.gated);
  pointers.push_back({"expert_offsets", a.expert_offsets});
  return pointers;
}

}  // namespace detail

namespace {

// For validated args with T > 0: the stream's device, the kernel and its workspace.
Status plan(const GroupedGatedMlpArgs& args, cudaStream_t stream, detail::Call<GroupedGatedMlpArgs>* call) {
  if (Status s = detail::check_device(kOp, args, stream, &call->caps); !s.ok()) return s;
  return detail::resolve(kOp, args, detail::compiled_keys(), call);
}

}  // namespace

Status grouped_gated_mlp_workspace_size(const GroupedGatedMlpArgs& args, cudaStream_t stream, std::size_t* bytes) {
  if (bytes == nullptr) return Status::invalid_argument("grouped_gated_mlp_workspace_size: bytes is null");
  *bytes = 0;
  if (Status s = validate_grouped_gated_mlp_args(args); !s.ok() || args.gated.M == 0) return s;
  detail::Call<GroupedGatedMlpArgs> call;
  if (Status s = plan(args, stream, &call); !s.ok()) return s;
  *bytes = call.workspace_bytes;
  return Status::success();
}

Status grouped_gated_mlp(const GroupedGatedMlpArgs& args, cudaStream_t stream) {
  if (Status s = validate_grouped_gated_mlp_args(args); !s.ok() || args.gated.M == 0) return s;
  detail::Call<GroupedGatedMlpArgs> call;
  if (Status s = plan(args, stream, &call); !s.ok()) return s;
  if (Status s = detail::check_workspace(kOp, call.workspace_bytes, args.gated.workspace, args.gated.workspace_bytes);
      !s.ok()) {
    return s;
  }
  return call.launcher->run(args, call.plan, stream);
}

}  // namespace epifuse

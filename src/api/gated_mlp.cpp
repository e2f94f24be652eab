// Public entry points of the fused gated MLP: validate, read the stream's device, choose a
// fused kernel or the delegated cuBLASLt + act·mul path, check the workspace, launch.
#include "epifuse/gated_mlp.hpp"

#include <limits>

#include "api/call.hpp"
#include "dispatch/registry.hpp"

namespace epifuse {
namespace {

constexpr const char* kOp = "gated_mlp";

}  // namespace

namespace detail {

std::vector<NamedPointer> operand_pointers(const GatedMlpArgs& a) {
  return {{"x", a.x}, {"the weight", a.w.weight}, {"the bias", a.w.bias}, {"out", a.out}, {"the workspace", a.workspace}};
}

DelegatedGatedPlan gated_delegation(const GatedMlpArgs& args, const DeviceCaps& caps, std::size_t usable_bytes) {
  if (!gated_delegation_pays(args, caps, compiled_keys())) return {};
  return plan_delegated_gated(args, caps.device, usable_bytes);
}

}  // namespace detail

Status gated_mlp_workspace_size(const GatedMlpArgs& args, cudaStream_t stream, std::size_t* bytes) {
  if (bytes == nullptr) return Status::invalid_argument("gated_mlp_workspace_size: bytes is null");
  *bytes = 0;
  if (Status s = validate_gated_mlp_args(args); !s.ok() || args.M == 0) return s;
  detail::Call<GatedMlpArgs> call;
  if (Status s = detail::check_device(kOp, args, stream, &call.caps); !s.ok()) return s;
  const detail::DelegatedGatedPlan delegated =
      detail::gated_delegation(args, *call.caps, std::numeric_limits<std::size_t>::max());
  if (delegated.found()) {
    *bytes = delegated.workspace_bytes();
    return Status::success();
  }
  if (Status s = detail::plan_call(kOp, args, &call, detail::Purpose::kWorkspaceQuery); !s.ok()) return s;
  *bytes = call.workspace_bytes;
  return Status::success();
}

Status gated_mlp(const GatedMlpArgs& args, cudaStream_t stream) {
  if (Status s = validate_gated_mlp_args(args); !s.ok() || args.M == 0) return s;
  detail::Call<GatedMlpArgs> call;
  if (Status s = detail::check_device(kOp, args, stream, &call.caps); !s.ok()) return s;
  const detail::DelegatedGatedPlan delegated = detail::gated_delegation(
      args, *call.caps, detail::usable_delegated_workspace(args.workspace, args.workspace_bytes));
  if (delegated.found()) return detail::run_delegated_gated(args, delegated, stream);
  return detail::launch_planned(kOp, args, stream, &call);
}

}  // namespace epifuse

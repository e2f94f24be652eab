// Public entry points of the fused gated MLP: validate, read the stream's device, choose a
// kernel, check the workspace, launch.
#include "epifuse/gated_mlp.hpp"

#include "api/call.hpp"

namespace epifuse {
namespace {

constexpr const char* kOp = "gated_mlp";

}  // namespace

namespace detail {

std::vector<NamedPointer> operand_pointers(const GatedMlpArgs& a) {
  return {{"x", a.x}, {"the weight", a.w.weight}, {"the bias", a.w.bias}, {"out", a.out}, {"the workspace", a.workspace}};
}

}  // namespace detail

Status gated_mlp_workspace_size(const GatedMlpArgs& args, cudaStream_t stream, std::size_t* bytes) {
  if (bytes == nullptr) return Status::invalid_argument("gated_mlp_workspace_size: bytes is null");
  *bytes = 0;
  if (Status s = validate_gated_mlp_args(args); !s.ok() || args.M == 0) return s;
  detail::Call<GatedMlpArgs> call;
  if (Status s = detail::prepare_call(kOp, args, stream, &call); !s.ok()) return s;
  *bytes = call.launcher->workspace_bytes(args, call.plan);
  return Status::success();
}

Status gated_mlp(const GatedMlpArgs& args, cudaStream_t stream) {
  if (Status s = validate_gated_mlp_args(args); !s.ok() || args.M == 0) return s;
  detail::Call<GatedMlpArgs> call;
  if (Status s = detail::prepare_call(kOp, args, stream, &call); !s.ok()) return s;
  if (Status s = detail::check_workspace(kOp, call.launcher->workspace_bytes(args, call.plan), args.workspace,
                                         args.workspace_bytes);
      !s.ok()) {
    return s;
  }
  return call.launcher->run(args, call.plan, stream);
}

}  // namespace epifuse

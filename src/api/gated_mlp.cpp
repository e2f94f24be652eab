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
  return detail::call_workspace_bytes(kOp, args, stream, bytes);
}

Status gated_mlp(const GatedMlpArgs& args, cudaStream_t stream) {
  if (Status s = validate_gated_mlp_args(args); !s.ok() || args.M == 0) return s;
  return detail::launch_call(kOp, args, stream);
}

}  // namespace epifuse

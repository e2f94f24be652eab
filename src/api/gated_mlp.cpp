// Public entry points of the fused gated MLP: validate, read the stream's device, choose a
// fused kernel or the delegated cuBLASLt + act·mul path, or time them (api/gated_path.hpp), check
// the workspace, launch.
#include "epifuse/gated_mlp.hpp"

#include <algorithm>
#include <limits>

#include "api/call.hpp"
#include "api/gated_path.hpp"
#include "dispatch/registry.hpp"

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
  if (Status s = detail::check_device(kOp, args, stream, &call.caps); !s.ok()) return s;
  const detail::GatedPaths paths = detail::gated_paths(args, *call.caps, std::numeric_limits<std::size_t>::max(), true);
  if (paths.delegated.found() && paths.rule_delegates && !detail::delegated_tuning_enabled()) {
    *bytes = paths.delegated.workspace_bytes();
    return Status::success();
  }
  // Room for the fused kernel's first choice and, where the first launch may time it, the product.
  const std::size_t delegated_bytes = paths.delegated.found() ? paths.delegated.workspace_bytes() : 0;
  if (Status s = detail::plan_call(kOp, args, &call, detail::Purpose::kWorkspaceQuery); !s.ok()) {
    if (!paths.rule_delegates || delegated_bytes == 0) return s;
    *bytes = delegated_bytes;  // no fused kernel for the call: the delegated path alone
    return Status::success();
  }
  *bytes = std::max(call.workspace_bytes, delegated_bytes);
  for (const KernelChoice& alternative : paths.alternatives) {  // timed at the first launch
    GatedMlpArgs forced = args;
    forced.kernel = alternative;
    detail::Call<GatedMlpArgs> other;
    other.caps = call.caps;
    if (detail::plan_call(kOp, forced, &other, detail::Purpose::kWorkspaceQuery).ok()) {
      *bytes = std::max(*bytes, other.workspace_bytes);
    }
  }
  return Status::success();
}

Status gated_mlp(const GatedMlpArgs& args, cudaStream_t stream) {
  if (Status s = validate_gated_mlp_args(args); !s.ok() || args.M == 0) return s;
  detail::Call<GatedMlpArgs> call;
  if (Status s = detail::check_device(kOp, args, stream, &call.caps); !s.ok()) return s;
  const std::size_t usable = detail::usable_delegated_workspace(args.workspace, args.workspace_bytes);
  detail::GatedPaths paths = detail::gated_paths(args, *call.caps, usable);
  if (!paths.has_choice()) return detail::launch_planned(kOp, args, stream, &call);
  const detail::DeviceCaps* caps = call.caps;
  auto run = [&](const detail::GatedRun& way, cudaStream_t s) {
    if (way.delegated) {  // planned again: its first run chooses cuBLASLt's candidate for the cached plan
      return detail::run_delegated_gated(args, detail::plan_delegated_gated(args, caps->device, usable), s);
    }
    GatedMlpArgs fused_args = args;
    fused_args.kernel = way.kernel;
    detail::Call<GatedMlpArgs> fused;
    fused.caps = caps;
    return detail::launch_planned(kOp, fused_args, s, &fused);
  };
  if (detail::times_gated_paths(paths, stream)) detail::time_gated_paths(&paths, run, stream);
  return run(paths.run(), stream);
}

}  // namespace epifuse

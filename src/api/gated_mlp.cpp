// Public entry points of the fused gated MLP: validate, read the stream's device, choose a
// fused kernel or the delegated cuBLASLt + act·mul path, or time them (api/gated_path.hpp), check
// the workspace, launch; or repeat the launch this thread kept for the same arguments
// (api/kept_launches.hpp).
#include "epifuse/gated_mlp.hpp"

#include <algorithm>
#include <limits>
#include <optional>

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
  const detail::CallKey key = detail::CallKey::of(args, detail::delegated_tuning_enabled());
  if (std::optional<Status> repeated = detail::repeat_kept_call(kOp, key, args, stream)) return *repeated;
  if (Status s = validate_gated_mlp_args(args); !s.ok() || args.M == 0) return s;
  detail::Call<GatedMlpArgs> call;
  if (Status s = detail::check_device(kOp, args, stream, &call.caps); !s.ok()) return s;
  const std::size_t usable = detail::usable_delegated_workspace(args.workspace, args.workspace_bytes);
  detail::GatedPaths paths = detail::gated_paths(args, *call.caps, usable);
  if (!paths.has_choice()) return detail::launch_planned_and_keep(kOp, key, args, stream, &call);
  const detail::DeviceCaps* caps = call.caps;
  // `keep`: the way is final, so a fused launch may be kept (api/kept_launches.hpp).
  auto run = [&](const detail::GatedRun& way, cudaStream_t s, bool keep) {
    if (way.delegated) {  // planned again: its first run chooses cuBLASLt's candidate for the cached plan
      return detail::run_delegated_gated(args, detail::plan_delegated_gated(args, caps->device, usable), s);
    }
    GatedMlpArgs fused_args = args;
    fused_args.kernel = way.kernel;
    detail::Call<GatedMlpArgs> fused;
    fused.caps = caps;
    return keep ? detail::launch_planned_and_keep(kOp, key, fused_args, s, &fused)
                : detail::launch_planned(kOp, fused_args, s, &fused);
  };
  if (detail::times_gated_paths(paths, stream)) {
    detail::time_gated_paths(
        &paths, [&](const detail::GatedRun& way, cudaStream_t s) { return run(way, s, false); }, stream);
  }
  // With tuning on, the way may change until a first eager launch has timed it: kept only after.
  return run(paths.run(), stream, paths.remembered || !detail::delegated_tuning_enabled());
}

}  // namespace epifuse

// Public entry points of the grouped gated MLP: validate, read the stream's device, choose the
// grouped launches (one per grouped kernel, or one when the call's rows all fit the first's
// range), check the workspace, launch each (its setup kernel, then its grouped kernel).
#include "epifuse/grouped_gated_mlp.hpp"

#include <algorithm>
#include <string>
#include <variant>
#include <vector>

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

// One launch of the call: its kernel's launcher and plan.
struct Part {
  const detail::Launcher<GroupedGatedMlpArgs>* launcher = nullptr;
  detail::LaunchPlan plan;
};

// For validated args with T > 0: the stream's device, the launches (run in turn on the stream,
// sharing the workspace) and the workspace the largest needs.
Status plan(const GroupedGatedMlpArgs& args, cudaStream_t stream, std::vector<Part>* parts, std::size_t* bytes) {
  const detail::DeviceCaps* caps = nullptr;
  if (Status s = detail::check_device(kOp, args, stream, &caps); !s.ok()) return s;
  std::vector<detail::GroupedLaunch> launches;
  if (Status s = detail::select(args, *caps, detail::compiled_keys(), &launches); !s.ok()) return s;
  *bytes = 0;
  for (const detail::GroupedLaunch& launch : launches) {
    const detail::KernelEntry* entry = detail::find_entry(launch.choice.key);
    const auto* launcher = entry != nullptr ? std::get_if<detail::Launcher<GroupedGatedMlpArgs>>(&entry->launcher) : nullptr;
    if (launcher == nullptr) {
      return Status::internal(std::string(kOp) + ": dispatch chose '" + name(launch.choice.key) + "', which has no launcher");
    }
    parts->push_back({launcher, detail::launch_plan(launch, *caps)});
    *bytes = std::max(*bytes, launcher->workspace_bytes(args, parts->back().plan));
  }
  return Status::success();
}

}  // namespace

Status grouped_gated_mlp_workspace_size(const GroupedGatedMlpArgs& args, cudaStream_t stream, std::size_t* bytes) {
  if (bytes == nullptr) return Status::invalid_argument("grouped_gated_mlp_workspace_size: bytes is null");
  *bytes = 0;
  if (Status s = validate_grouped_gated_mlp_args(args); !s.ok() || args.gated.M == 0) return s;
  std::vector<Part> parts;
  std::size_t needed = 0;
  if (Status s = plan(args, stream, &parts, &needed); !s.ok()) return s;
  *bytes = needed;
  return Status::success();
}

Status grouped_gated_mlp(const GroupedGatedMlpArgs& args, cudaStream_t stream) {
  if (Status s = validate_grouped_gated_mlp_args(args); !s.ok() || args.gated.M == 0) return s;
  std::vector<Part> parts;
  std::size_t needed = 0;
  if (Status s = plan(args, stream, &parts, &needed); !s.ok()) return s;
  if (Status s = detail::check_workspace(kOp, needed, args.gated.workspace, args.gated.workspace_bytes); !s.ok()) {
    return s;
  }
  for (const Part& part : parts) {
    if (Status s = part.launcher->run(args, part.plan, stream); !s.ok()) return s;
  }
  return Status::success();
}

}  // namespace epifuse

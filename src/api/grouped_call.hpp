// What both grouped entry points (grouped_gemm, grouped_gated_mlp) do after validation: the
// stream's device, the launches dispatch chooses (one per grouped kernel, run in turn on the
// stream and sharing the workspace), the workspace the largest needs, and the launches.
#pragma once

#include <algorithm>
#include <cstddef>
#include <string>
#include <variant>
#include <vector>

#include <cuda_runtime_api.h>

#include "api/call.hpp"

namespace epifuse::detail {

// The call over all T rows inside a grouped call's args.
inline const GemmArgs& all_rows(const GroupedGemmArgs& args) { return args.gemm; }
inline const GatedMlpArgs& all_rows(const GroupedGatedMlpArgs& args) { return args.gated; }
inline Status validate(const GroupedGemmArgs& args) { return validate_grouped_gemm_args(args); }
inline Status validate(const GroupedGatedMlpArgs& args) { return validate_grouped_gated_mlp_args(args); }

template <class Args>
struct GroupedPart {
  const Launcher<Args>* launcher = nullptr;
  LaunchPlan plan;
};

// For args with T > 0 on the device of `caps`: the launches and the workspace the largest needs
// (from the shapes alone: no pointer is read).
template <class Args>
Status plan_grouped_on(const char* op, const Args& args, const DeviceCaps& caps, std::vector<GroupedPart<Args>>* parts,
                       std::size_t* bytes) {
  std::vector<GroupedLaunch> launches;
  if (Status s = select(args, caps, compiled_keys(), &launches); !s.ok()) return s;
  *bytes = 0;
  for (const GroupedLaunch& launch : launches) {
    const KernelEntry* entry = find_entry(launch.choice.key);
    const auto* launcher = entry != nullptr ? std::get_if<Launcher<Args>>(&entry->launcher) : nullptr;
    if (launcher == nullptr) {
      return Status::internal(std::string(op) + ": dispatch chose '" + name(launch.choice.key) + "', which has no launcher");
    }
    parts->push_back({launcher, launch_plan(launch, caps)});
    *bytes = std::max(*bytes, launcher->workspace_bytes(args, parts->back().plan));
  }
  return Status::success();
}

// For validated args with T > 0: the stream's device, then plan_grouped_on.
template <class Args>
Status plan_grouped(const char* op, const Args& args, cudaStream_t stream, std::vector<GroupedPart<Args>>* parts,
                    std::size_t* bytes) {
  const DeviceCaps* caps = nullptr;
  if (Status s = check_device(op, args, stream, &caps); !s.ok()) return s;
  return plan_grouped_on(op, args, *caps, parts, bytes);
}

template <class Args>
Status grouped_workspace_bytes(const char* op, const Args& args, cudaStream_t stream, std::size_t* bytes) {
  if (bytes == nullptr) return Status::invalid_argument(std::string(op) + "_workspace_size: bytes is null");
  *bytes = 0;
  if (Status s = validate(args); !s.ok() || all_rows(args).M == 0) return s;
  std::vector<GroupedPart<Args>> parts;
  std::size_t needed = 0;
  if (Status s = plan_grouped(op, args, stream, &parts, &needed); !s.ok()) return s;
  *bytes = needed;
  return Status::success();
}

// Enqueues the planned launches in turn.
template <class Args>
Status run_grouped(const std::vector<GroupedPart<Args>>& parts, const Args& args, cudaStream_t stream) {
  for (const GroupedPart<Args>& part : parts) {
    if (Status s = part.launcher->run(args, part.plan, stream); !s.ok()) return s;
  }
  return Status::success();
}

template <class Args>
Status launch_grouped(const char* op, const Args& args, cudaStream_t stream) {
  if (Status s = validate(args); !s.ok() || all_rows(args).M == 0) return s;
  std::vector<GroupedPart<Args>> parts;
  std::size_t needed = 0;
  if (Status s = plan_grouped(op, args, stream, &parts, &needed); !s.ok()) return s;
  const auto& rows = all_rows(args);
  if (Status s = check_workspace(op, needed, rows.workspace, rows.workspace_bytes); !s.ok()) return s;
  return run_grouped(parts, args, stream);
}

}  // namespace epifuse::detail

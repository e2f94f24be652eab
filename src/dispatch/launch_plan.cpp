// The launch prerequisites that sm90::gemm_custom (a header template) shares with the entry points.
#include "epifuse/detail/launch_plan.hpp"

#include <cstdint>
#include <string>

#include "dispatch/device_caps.hpp"
#include "dispatch/select.hpp"

namespace epifuse::detail {

Status launch_plan_for_stream(cudaStream_t stream, Arch arch, LaunchPlan* plan) {
  const DeviceCaps* caps = nullptr;
  if (Status s = stream_device_caps(stream, &caps); !s.ok()) return s;
  if (kernel_arch(*caps) != arch) {
    return Status::not_supported("device " + std::to_string(caps->device) + " (" + caps->name + ", sm_" +
                                 std::to_string(caps->cc_major) + std::to_string(caps->cc_minor) +
                                 ") does not run this kernel's architecture");
  }
  *plan = launch_plan(*caps, KernelChoice{});
  return Status::success();
}

Status check_workspace(const char* op, std::size_t needed, const void* workspace, std::size_t workspace_bytes) {
  if (needed == 0) return Status::success();
  if (workspace == nullptr || workspace_bytes < needed) {
    return Status::invalid_argument(std::string(op) + ": this call needs " + std::to_string(needed) +
                                    " bytes of workspace (its *_workspace_size query), got " +
                                    std::to_string(workspace == nullptr ? 0 : workspace_bytes));
  }
  if (reinterpret_cast<std::uintptr_t>(workspace) % 16 != 0) {
    return Status::invalid_argument(std::string(op) + ": the workspace must be 16-byte aligned");
  }
  return Status::success();
}

}  // namespace epifuse::detail

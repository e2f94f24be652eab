// What every entry point does between validation and the launch, for any op's Args: the stream's
// device (and the launch prerequisites it checks), the opt-in pointer check, the kernel choice
// among the compiled kernels, and the launch plan. Arch-neutral: dispatch picks the architecture.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <variant>
#include <vector>

#include <cuda_runtime_api.h>

#include "api/kept_launches.hpp"
#include "delegate/cublaslt_bias_act.hpp"
#include "delegate/cublaslt_gated.hpp"
#include "delegate/cublaslt_gemm.hpp"
#include "dispatch/device_caps.hpp"
#include "dispatch/registry.hpp"
#include "dispatch/select.hpp"
#include "epifuse/detail/launch_plan.hpp"
#include "kernels/kernel_entry.hpp"
#include "validate/pointer_check.hpp"

namespace epifuse::detail {

template <class Args>
struct Call {
  const DeviceCaps* caps = nullptr;
  KernelChoice choice;
  const Launcher<Args>* launcher = nullptr;
  LaunchPlan plan;
  std::size_t workspace_bytes = 0;  // what the chosen kernel needs for these args
};

// How a GEMM runs cuBLASLt instead of an epifuse kernel: whole (cuBLASLt computes the epilogue),
// or its product with epifuse's bias + activation kernel after it; neither found: the kernel runs.
struct GemmDelegation {
  DelegatedPlan whole;
  DelegatedBiasActPlan bias_act;

  bool found() const { return whole.found || bias_act.found(); }
  // What the call needs of the caller's workspace, alignment included.
  std::size_t workspace_bytes() const;
};

// Whom a call is prepared for: the workspace query reports what dispatch's first choice needs
// (a padded copy of x, stream-K partials). A launch (or selected_kernel) given less reads x in
// place, and then runs whole tiles instead of a stream-K choice, so that a call without
// reductions works without a workspace.
enum class Purpose { kWorkspaceQuery, kLaunch };

// For validated GEMM args that launch: the cuBLASLt plans gemm() runs instead of an epifuse kernel,
// within the call's workspace for a launch, within the most a delegated call asks for a query.
// Checks the stream's device as every launch does (api/gemm.cpp).
Status gemm_delegation(const GemmArgs& args, cudaStream_t stream, Purpose purpose, GemmDelegation* delegation);

// The args epifuse's own GEMM kernels run: a 16-bit column bias replaced by its fp32 copy at the
// workspace's start and the workspace by what follows it (api/gemm.cpp widens it there before
// the launch); a workspace too small for the copy leaves none (enough for a query or a choice).
GemmArgs own_kernel_args(const GemmArgs& args);
// What gemm() says of a call epifuse's own kernel runs whose workspace cannot hold the fp32 copy
// of its 16-bit bias (success where there is none to widen or room for it).
Status check_own_kernel_workspace(const GemmArgs& args);

// Every operand pointer of a call, for the opt-in pointer check.
std::vector<NamedPointer> operand_pointers(const GemmArgs& args);
std::vector<NamedPointer> operand_pointers(const GatedMlpArgs& args);
std::vector<NamedPointer> operand_pointers(const GroupedGemmArgs& args);
std::vector<NamedPointer> operand_pointers(const GroupedGatedMlpArgs& args);

template <class Args>
Status check_device(const char* op, const Args& args, cudaStream_t stream, const DeviceCaps** caps) {
  if (Status s = stream_device_caps(stream, caps); !s.ok()) return s;
  if (pointer_check_enabled()) return check_device_pointers(op, operand_pointers(args), (*caps)->device);
  return Status::success();
}

// Chooses among `candidates`, finds the launcher, plans the launch and sizes its workspace.
template <class Args>
Status resolve(const char* op, const Args& args, const std::vector<KernelKey>& candidates, Call<Args>* call) {
  if (Status s = select(args, *call->caps, candidates, &call->choice); !s.ok()) return s;
  const KernelEntry* entry = find_entry(call->choice.key);
  call->launcher = entry != nullptr ? std::get_if<Launcher<Args>>(&entry->launcher) : nullptr;
  if (call->launcher == nullptr) {
    return Status::internal(std::string(op) + ": dispatch chose '" + name(call->choice.key) + "', which has no launcher");
  }
  call->plan = launch_plan(args, *call->caps, call->choice);
  call->workspace_bytes = call->launcher->workspace_bytes(args, call->plan);
  return Status::success();
}

// A call whose workspace cannot hold the padded x reads x in place.
template <class Args>
void read_x_in_place_if_short(const Args& args, Call<Args>* call) {
  if (call->plan.padded_tokens == 0 || call->workspace_bytes <= args.workspace_bytes) return;
  call->plan.padded_tokens = 0;
  call->workspace_bytes = call->launcher->workspace_bytes(args, call->plan);
}

// For validated args of a call that launches a kernel, once call->caps holds the stream's device.
template <class Args>
Status plan_call(const char* op, const Args& args, Call<Args>* call, Purpose purpose = Purpose::kLaunch) {
  if (Status s = resolve(op, args, compiled_keys(), call); !s.ok()) return s;
  if (purpose == Purpose::kWorkspaceQuery) return Status::success();
  read_x_in_place_if_short(args, call);
  if (!args.kernel && call->choice.key.decomposition != Decomposition::kDataParallel &&
      call->workspace_bytes > args.workspace_bytes) {
    if (Status s = resolve(op, args, compiled_whole_tile_keys(), call); !s.ok()) return s;
    read_x_in_place_if_short(args, call);
  }
  return Status::success();
}

// For validated args of a call that launches a kernel.
template <class Args>
Status prepare_call(const char* op, const Args& args, cudaStream_t stream, Call<Args>* call,
                    Purpose purpose = Purpose::kLaunch) {
  if (Status s = check_device(op, args, stream, &call->caps); !s.ok()) return s;
  return plan_call(op, args, call, purpose);
}

// The workspace a validated call that launches a kernel needs (`*bytes`, set by the caller to 0
// beforehand, stays 0 on failure).
template <class Args>
Status call_workspace_bytes(const char* op, const Args& args, cudaStream_t stream, std::size_t* bytes) {
  Call<Args> call;
  if (Status s = prepare_call(op, args, stream, &call, Purpose::kWorkspaceQuery); !s.ok()) return s;
  *bytes = call.workspace_bytes;
  return Status::success();
}

// Runs a validated call that launches a kernel, once call->caps holds the stream's device and the
// caller's workspace covers what the kernel needs.
template <class Args>
Status launch_planned(const char* op, const Args& args, cudaStream_t stream, Call<Args>* call) {
  if (Status s = plan_call(op, args, call); !s.ok()) return s;
  if (Status s = check_workspace(op, call->workspace_bytes, args.workspace, args.workspace_bytes); !s.ok()) return s;
  return call->launcher->run(args, call->plan, stream);
}

// Whether a call that launches a kernel without a workspace enqueues that launch alone: a GEMM's
// reductions are zeroed by memsets before it (src/epilogue/sm90_runtime_epilogue.cuh).
inline bool launch_is_all_it_enqueues(const GatedMlpArgs&) { return true; }
inline bool launch_is_all_it_enqueues(const GemmArgs& args) { return !args.epilogue.has_reductions(); }

// launch_planned, keeping the launch for `key` (api/kept_launches.hpp) where it is all the call
// enqueues (one kernel, no workspace: no padded operand, no stream-K partials), the tuning switch
// is as the key says, and this thread met the key before (kept from its second call).
template <class Args>
Status launch_planned_and_keep(const char* op, const CallKey& key, const Args& args, cudaStream_t stream,
                               Call<Args>* call) {
  if (Status s = plan_call(op, args, call); !s.ok()) return s;
  if (Status s = check_workspace(op, call->workspace_bytes, args.workspace, args.workspace_bytes); !s.ok()) return s;
  const bool keepable = call->workspace_bytes == 0 && launch_is_all_it_enqueues(args) &&
                        key.delegated_tuning() == delegated_tuning_enabled();
  if (!keepable || !seen_before(key)) return call->launcher->run(args, call->plan, stream);
  LaunchRecording recording;
  if (Status s = call->launcher->run(args, call->plan, stream); !s.ok()) return s;
  keep_launch(key, call->caps->device, recording.take_only());
  return Status::success();
}

// Where this thread kept a launch for `key`: the device checks every call makes, then that launch
// again on `stream`. std::nullopt where none is kept for the stream's device.
template <class Args>
std::optional<Status> repeat_kept_call(const char* op, const CallKey& key, const Args& args, cudaStream_t stream) {
  const KeptLaunch* kept = find_kept_launch(key);
  if (kept == nullptr) return std::nullopt;
  const DeviceCaps* caps = nullptr;
  if (Status s = check_device(op, args, stream, &caps); !s.ok()) return s;
  if (caps->device != kept->device) return std::nullopt;
  if (cudaError_t err = repeat_kept_launch(key, *kept, stream); err != cudaSuccess) {
    cudaGetLastError();
    return Status::cuda_error(std::string(op) + ": kernel launch: " + cudaGetErrorName(err) + " (" +
                              cudaGetErrorString(err) + ")");
  }
  return Status::success();
}

}  // namespace epifuse::detail

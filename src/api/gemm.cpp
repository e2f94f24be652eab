// Public entry points of the GEMM: validate, read the stream's device, choose a kernel, check
// the workspace, launch (after widening a 16-bit column bias for epifuse's own kernels); or repeat
// the launch this thread kept for the same arguments (api/kept_launches.hpp).
#include "epifuse/gemm.hpp"

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <optional>
#include <string>

#include "api/call.hpp"
#include "dispatch/registry.hpp"
#include "kernels/widen_bias.hpp"

namespace epifuse {
namespace {

constexpr const char* kOp = "gemm";

bool launches_nothing(const GemmArgs& a) { return a.M == 0 || a.N == 0; }

// An empty call writes only the requested reductions over what is not empty: their identity, 0.
Status write_empty_reductions(const GemmArgs& a, cudaStream_t stream) {
  const Epilogue& e = a.epilogue;
  const std::pair<float*, std::int64_t> outputs[] = {{e.row_sum, a.M}, {e.row_amax, a.M}, {e.col_sum, a.N},
                                                     {e.col_amax, a.N}, {e.amax, 1}};
  for (const auto& [ptr, length] : outputs) {
    if (ptr == nullptr || length == 0) continue;
    if (cudaError_t err = cudaMemsetAsync(ptr, 0, static_cast<std::size_t>(length) * sizeof(float), stream);
        err != cudaSuccess) {
      cudaGetLastError();
      return Status::cuda_error(std::string("gemm: setting empty reductions to 0: ") + cudaGetErrorName(err) + " (" +
                                cudaGetErrorString(err) + ")");
    }
  }
  return Status::success();
}

// Where a 16-bit column bias is widened for epifuse's own kernels: the workspace's first bytes,
// rounded up so that what follows keeps the workspace's alignment.
constexpr std::size_t kWideBiasAlignment = 256;

std::size_t wide_bias_bytes(const GemmArgs& a) {
  if (a.epilogue.col_bias == nullptr || a.epilogue.col_bias_dtype == DType::kFP32) return 0;
  const std::size_t bytes = static_cast<std::size_t>(a.N) * sizeof(float);
  return (bytes + kWideBiasAlignment - 1) / kWideBiasAlignment * kWideBiasAlignment;
}

Status check_wide_bias_room(const GemmArgs& a) {
  const std::size_t needed = wide_bias_bytes(a);
  if (a.workspace != nullptr && reinterpret_cast<std::uintptr_t>(a.workspace) % 16 != 0) {
    return Status::invalid_argument("gemm: the workspace must be 16-byte aligned (it holds the widened column bias)");
  }
  if (a.workspace != nullptr && a.workspace_bytes >= needed) return Status::success();
  return Status::invalid_argument(std::string("gemm: a ") + to_string(a.epilogue.col_bias_dtype) +
                                  " epilogue.col_bias on a call epifuse's own kernel runs is widened to fp32 in the "
                                  "workspace, which needs " +
                                  std::to_string(needed) + " bytes for it but holds " +
                                  std::to_string(a.workspace != nullptr ? a.workspace_bytes : 0) +
                                  "; gemm_workspace_size() counts them");
}

}  // namespace

namespace detail {

Status check_own_kernel_workspace(const GemmArgs& args) {
  return wide_bias_bytes(args) == 0 ? Status::success() : check_wide_bias_room(args);
}

GemmArgs own_kernel_args(const GemmArgs& args) {
  const std::size_t bias_bytes = wide_bias_bytes(args);
  if (bias_bytes == 0) return args;
  GemmArgs own = args;
  own.epilogue.col_bias_dtype = DType::kFP32;
  if (args.workspace == nullptr || args.workspace_bytes < bias_bytes) {
    own.workspace = nullptr;  // a query: what the kernel needs besides the bias
    own.workspace_bytes = 0;
    return own;
  }
  own.epilogue.col_bias = args.workspace;
  own.workspace = static_cast<std::byte*>(args.workspace) + bias_bytes;
  own.workspace_bytes = args.workspace_bytes - bias_bytes;
  return own;
}

std::vector<NamedPointer> operand_pointers(const GemmArgs& a) {
  const Epilogue& e = a.epilogue;
  return {{"A", a.A},
          {"B", a.B},
          {"D", a.D},
          {"epilogue.residual", e.residual},
          {"epilogue.row_scale", e.row_scale},
          {"epilogue.col_scale", e.col_scale},
          {"epilogue.col_bias", e.col_bias},
          {"epilogue.row_bias", e.row_bias},
          {"epilogue.row_sum", e.row_sum},
          {"epilogue.row_amax", e.row_amax},
          {"epilogue.col_sum", e.col_sum},
          {"epilogue.col_amax", e.col_amax},
          {"epilogue.amax", e.amax},
          {"the workspace", a.workspace}};
}

Status check_gemm_pointers(const GemmArgs& args, int device) {
  return pointer_check_enabled() ? check_device_pointers(kOp, operand_pointers(args), device) : Status::success();
}

std::size_t GemmDelegation::workspace_bytes() const {
  if (bias_act.found()) return bias_act.workspace_bytes();
  return whole.workspace_bytes() > 0 ? whole.workspace_bytes() + kDelegatedWorkspaceAlignment : 0;
}

Status gemm_delegation(const GemmArgs& args, cudaStream_t stream, Purpose purpose, GemmDelegation* delegation) {
  *delegation = {};
  const bool whole = cublaslt_expresses(args);
  if (!whole && !bias_act_delegable(args)) return Status::success();
  const DeviceCaps* caps = nullptr;
  if (Status s = check_device(kOp, args, stream, &caps); !s.ok()) return s;
  if (!kernel_arch(*caps)) return Status::success();  // dispatch reports the unsupported device
  if (whole && gemm_delegation_pays(args, *caps, compiled_keys())) {
    const std::size_t lt_bytes = purpose == Purpose::kLaunch ? usable_delegated_workspace(args) : kDelegatedWorkspaceCap;
    delegation->whole = plan_delegated_gemm(args, caps->device, lt_bytes);
  }
  if (!delegation->whole.found && gemm_bias_act_delegation_pays(args, *caps)) {
    const std::size_t usable = purpose == Purpose::kLaunch ? usable_delegated_workspace(args)
                                                           : std::numeric_limits<std::size_t>::max();
    delegation->bias_act = plan_delegated_bias_act(args, caps->device, usable);
  }
  return Status::success();
}

}  // namespace detail

Status gemm_workspace_size(const GemmArgs& args, cudaStream_t stream, std::size_t* bytes) {
  if (bytes == nullptr) return Status::invalid_argument("gemm_workspace_size: bytes is null");
  *bytes = 0;
  if (Status s = validate_gemm_args(args); !s.ok() || launches_nothing(args)) return s;
  detail::GemmDelegation delegated;
  if (Status s = detail::gemm_delegation(args, stream, detail::Purpose::kWorkspaceQuery, &delegated); !s.ok()) {
    return s;
  }
  if (delegated.found()) {
    // With a 16-bit bias, also room for its fp32 copy, in case cuBLASLt finds no algorithm within
    // the workspace the call is given and epifuse's kernels run whole tiles on it instead.
    *bytes = std::max(delegated.workspace_bytes(), wide_bias_bytes(args));
    return Status::success();
  }
  if (wide_bias_bytes(args) > 0) {
    const detail::DeviceCaps* caps = nullptr;  // the opt-in pointer check sees the caller's own bias
    if (Status s = detail::check_device(kOp, args, stream, &caps); !s.ok()) return s;
  }
  if (Status s = detail::call_workspace_bytes(kOp, detail::own_kernel_args(args), stream, bytes); !s.ok()) return s;
  *bytes += wide_bias_bytes(args);
  return Status::success();
}

Status gemm(const GemmArgs& args, cudaStream_t stream) {
  const detail::CallKey key = detail::CallKey::of(args, detail::delegated_tuning_enabled());
  if (std::optional<Status> repeated = detail::repeat_kept_call(kOp, key, args, stream)) return *repeated;
  if (Status s = validate_gemm_args(args); !s.ok()) return s;
  if (launches_nothing(args)) {
    if (!args.epilogue.has_reductions()) return Status::success();
    const detail::DeviceCaps* caps = nullptr;
    if (Status s = detail::check_device(kOp, args, stream, &caps); !s.ok()) return s;
    return write_empty_reductions(args, stream);
  }
  detail::GemmDelegation delegated;
  if (Status s = detail::gemm_delegation(args, stream, detail::Purpose::kLaunch, &delegated); !s.ok()) {
    return s;
  }
  if (delegated.whole.found) return detail::run_delegated_gemm(args, delegated.whole, stream);
  if (delegated.bias_act.found()) return detail::run_delegated_bias_act(args, delegated.bias_act, stream);
  detail::Call<GemmArgs> call;
  if (Status s = detail::check_device(kOp, args, stream, &call.caps); !s.ok()) return s;
  if (wide_bias_bytes(args) == 0) return detail::launch_planned_and_keep(kOp, key, args, stream, &call);
  if (Status s = check_wide_bias_room(args); !s.ok()) return s;
  const GemmArgs own = detail::own_kernel_args(args);
  if (Status s = detail::plan_call(kOp, own, &call); !s.ok()) return s;
  if (Status s = detail::check_workspace(kOp, call.workspace_bytes, own.workspace, own.workspace_bytes); !s.ok()) {
    return s;
  }
  if (Status s = detail::widen_bias(args.epilogue.col_bias, args.epilogue.col_bias_dtype, args.N,
                                    static_cast<float*>(args.workspace), stream);
      !s.ok()) {
    return s;
  }
  return call.launcher->run(own, call.plan, stream);
}

}  // namespace epifuse

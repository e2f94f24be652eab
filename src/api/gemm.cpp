// Public entry points of the GEMM: validate, read the stream's device, choose a kernel, check
// the workspace, launch.
#include "epifuse/gemm.hpp"

#include <string>

#include "api/call.hpp"

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

}  // namespace

namespace detail {

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

Status gemm_delegation(const GemmArgs& args, cudaStream_t stream, std::size_t max_workspace_bytes,
                       DelegatedPlan* plan) {
  *plan = {};
  if (!cublaslt_expresses(args)) return Status::success();
  const DeviceCaps* caps = nullptr;
  if (Status s = check_device(kOp, args, stream, &caps); !s.ok()) return s;
  if (!kernel_arch(*caps)) return Status::success();  // dispatch reports the unsupported device
  *plan = plan_delegated_gemm(args, caps->device, max_workspace_bytes);
  return Status::success();
}

}  // namespace detail

Status gemm_workspace_size(const GemmArgs& args, cudaStream_t stream, std::size_t* bytes) {
  if (bytes == nullptr) return Status::invalid_argument("gemm_workspace_size: bytes is null");
  *bytes = 0;
  if (Status s = validate_gemm_args(args); !s.ok() || launches_nothing(args)) return s;
  detail::DelegatedPlan delegated;
  if (Status s = detail::gemm_delegation(args, stream, detail::kDelegatedWorkspaceCap, &delegated); !s.ok()) return s;
  if (delegated.found) {
    // Room to align the workspace, as cuBLASLt wants it.
    *bytes = delegated.workspace_bytes() > 0 ? delegated.workspace_bytes() + detail::kDelegatedWorkspaceAlignment : 0;
    return Status::success();
  }
  return detail::call_workspace_bytes(kOp, args, stream, bytes);
}

Status gemm(const GemmArgs& args, cudaStream_t stream) {
  if (Status s = validate_gemm_args(args); !s.ok()) return s;
  if (launches_nothing(args)) {
    if (!args.epilogue.has_reductions()) return Status::success();
    const detail::DeviceCaps* caps = nullptr;
    if (Status s = detail::check_device(kOp, args, stream, &caps); !s.ok()) return s;
    return write_empty_reductions(args, stream);
  }
  detail::DelegatedPlan delegated;
  if (Status s = detail::gemm_delegation(args, stream, detail::usable_delegated_workspace(args), &delegated); !s.ok()) {
    return s;
  }
  if (delegated.found) return detail::run_delegated_gemm(args, delegated, stream);
  return detail::launch_call(kOp, args, stream);
}

}  // namespace epifuse

// Kernel introspection and forcing (include/epifuse/tuning.hpp).
#include "epifuse/tuning.hpp"

#include "api/call.hpp"
#include "api/gated_path.hpp"

namespace epifuse {
namespace {

// For validated args.
template <class Args>
Status selected(const char* op, const Args& args, bool launches_nothing, cudaStream_t stream,
                std::optional<KernelChoice>* choice) {
  if (launches_nothing) return Status::success();
  detail::Call<Args> call;
  if (Status s = detail::prepare_call(op, args, stream, &call); !s.ok()) return s;
  *choice = call.choice;
  return Status::success();
}

}  // namespace

void set_delegated_tuning(bool enabled) { detail::set_delegated_tuning_enabled(enabled); }

bool delegated_tuning() { return detail::delegated_tuning_enabled(); }

std::vector<KernelKey> compiled_kernels(Op op) {
  std::vector<KernelKey> keys;
  for (const KernelKey& k : detail::compiled_keys()) {
    if (k.op == op) keys.push_back(k);
  }
  return keys;
}

std::optional<KernelKey> find_kernel(std::string_view kernel_name) {
  for (const KernelKey& k : detail::compiled_keys()) {
    if (name(k) == kernel_name) return k;
  }
  return std::nullopt;
}

Status selected_kernel(const GemmArgs& args, cudaStream_t stream, std::optional<KernelChoice>* choice,
                       bool* delegated) {
  if (choice == nullptr) return Status::invalid_argument("selected_kernel: choice is null");
  choice->reset();
  if (delegated != nullptr) *delegated = false;
  if (Status s = validate_gemm_args(args); !s.ok()) return s;
  const bool launches_nothing = args.M == 0 || args.N == 0;
  if (launches_nothing) return Status::success();
  detail::GemmDelegation plan;
  if (Status s = detail::gemm_delegation(args, stream, detail::Purpose::kLaunch, &plan); !s.ok()) {
    return s;
  }
  if (delegated != nullptr) *delegated = plan.found();
  if (!plan.found()) {
    const detail::DeviceCaps* caps = nullptr;  // as gemm(): the device first, then the bias's room
    if (Status s = detail::check_device("gemm", args, stream, &caps); !s.ok()) return s;
    if (Status s = detail::check_own_kernel_workspace(args); !s.ok()) return s;
  }
  return selected("gemm", detail::own_kernel_args(args), false, stream, choice);
}

Status selected_kernel(const GatedMlpArgs& args, cudaStream_t stream, std::optional<KernelChoice>* choice,
                       bool* delegated) {
  if (choice == nullptr) return Status::invalid_argument("selected_kernel: choice is null");
  choice->reset();
  if (delegated != nullptr) *delegated = false;
  if (Status s = validate_gated_mlp_args(args); !s.ok() || args.M == 0) return s;
  detail::Call<GatedMlpArgs> call;
  if (Status s = detail::check_device("gated_mlp", args, stream, &call.caps); !s.ok()) return s;
  const detail::GatedRun way =
      detail::gated_paths(args, *call.caps, detail::usable_delegated_workspace(args.workspace, args.workspace_bytes))
          .run();
  if (delegated != nullptr) *delegated = way.delegated;
  GatedMlpArgs fused_args = args;
  if (way.kernel) fused_args.kernel = way.kernel;  // a tiling its first launch timed faster
  if (Status s = detail::plan_call("gated_mlp", fused_args, &call); !s.ok()) return s;
  *choice = call.choice;
  return Status::success();
}

}  // namespace epifuse

// Public entry points of the GEMM: validate, choose a kernel, size the workspace, launch.
#include "epifuse/gemm.hpp"

#include <string>

#include "dispatch/sm90_heuristics.hpp"
#include "dispatch/sm90_kernel_registry.hpp"

namespace epifuse {
namespace {

bool is_noop(const GemmArgs& args) { return args.M == 0 || args.N == 0; }

Status choose(const GemmArgs& args, detail::Sm90Choice* choice) {
  sm90::LaunchConfig defaults;
  if (Status s = sm90::default_launch_config(&defaults); !s.ok()) return s;
  return detail::choose_sm90_gemm(args, defaults, choice);
}

}  // namespace

Status gemm_workspace_size(const GemmArgs& args, std::size_t* bytes) {
  *bytes = 0;
  if (Status s = validate_gemm_args(args); !s.ok() || is_noop(args)) return s;
  detail::Sm90Choice choice;
  if (Status s = choose(args, &choice); !s.ok()) return s;
  *bytes = choice.kernel->workspace_bytes(args, choice.config);
  return Status::success();
}

Status gemm(const GemmArgs& args, cudaStream_t stream) {
  if (Status s = validate_gemm_args(args); !s.ok() || is_noop(args)) return s;
  detail::Sm90Choice choice;
  if (Status s = choose(args, &choice); !s.ok()) return s;
  const std::size_t needed = choice.kernel->workspace_bytes(args, choice.config);
  if (needed > 0) {
    if (args.workspace == nullptr || args.workspace_bytes < needed) {
      return Status::invalid_argument("gemm: this epilogue needs " + std::to_string(needed) +
                                      " bytes of workspace (gemm_workspace_size), got " +
                                      std::to_string(args.workspace == nullptr ? 0 : args.workspace_bytes));
    }
    if (reinterpret_cast<std::uintptr_t>(args.workspace) % 16 != 0) {
      return Status::invalid_argument("gemm: workspace must be 16-byte aligned");
    }
  }
  return choice.kernel->run(args, choice.config, stream);
}

std::vector<GemmKernelInfo> gemm_kernels() {
  std::vector<GemmKernelInfo> infos;
  for (const detail::Sm90GemmKernelEntry* k : detail::sm90_gemm_kernels()) infos.push_back(k->info);
  return infos;
}

Status gemm_selected_kernel(const GemmArgs& args, std::string* name) {
  name->clear();
  if (Status s = validate_gemm_args(args); !s.ok()) return s;
  if (is_noop(args)) {
    *name = "none (empty output)";
    return Status::success();
  }
  detail::Sm90Choice choice;
  if (Status s = choose(args, &choice); !s.ok()) return s;
  *name = choice.kernel->info.name;
  return Status::success();
}

}  // namespace epifuse

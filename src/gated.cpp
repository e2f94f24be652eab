// Public entry points of the fused gated MLP: validate, choose a kernel, launch.
#include "epifuse/gated.hpp"

#include "dispatch/sm90_gated_heuristics.hpp"

namespace epifuse {

Status gated_mlp(const GatedArgs& args, cudaStream_t stream) {
  if (Status s = validate_gated_args(args); !s.ok() || args.M == 0) return s;
  const detail::Sm90GatedKernelEntry* kernel = nullptr;
  if (Status s = detail::choose_sm90_gated(args, &kernel); !s.ok()) return s;
  sm90::LaunchConfig config;
  if (Status s = sm90::default_launch_config(&config); !s.ok()) return s;
  return kernel->run(args, config, stream);
}

std::vector<GatedKernelInfo> gated_kernels() {
  std::vector<GatedKernelInfo> infos;
  for (const detail::Sm90GatedKernelEntry* k : detail::sm90_gated_kernels()) infos.push_back(k->info);
  return infos;
}

Status gated_selected_kernel(const GatedArgs& args, std::string* name) {
  name->clear();
  if (Status s = validate_gated_args(args); !s.ok()) return s;
  if (args.M == 0) {
    *name = "none (empty output)";
    return Status::success();
  }
  const detail::Sm90GatedKernelEntry* kernel = nullptr;
  if (Status s = detail::choose_sm90_gated(args, &kernel); !s.ok()) return s;
  *name = kernel->info.name;
  return Status::success();
}

}  // namespace epifuse

// Every compiled sm90 fused gated-MLP kernel, as dispatch sees it (gated_kernel_list.inc).
#pragma once

#include <vector>

#include <cuda_runtime_api.h>

#include "epifuse/gated.hpp"
#include "epifuse/sm90/launch.hpp"

namespace epifuse::detail {

struct Sm90GatedKernelEntry {
  GatedKernelInfo info;
  // Launches on `stream`; args are validated and match info.dtype.
  Status (*run)(const GatedArgs& args, const sm90::LaunchConfig& config, cudaStream_t stream);
};

const std::vector<const Sm90GatedKernelEntry*>& sm90_gated_kernels();

}  // namespace epifuse::detail

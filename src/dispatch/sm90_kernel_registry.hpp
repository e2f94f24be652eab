// Every compiled sm90 GEMM kernel, as dispatch sees it: CUTLASS-free entries, one per
// instantiation in src/kernels/sm90/instantiations/ (listed in kernel_list.inc).
#pragma once

#include <cstddef>
#include <vector>

#include <cuda_runtime_api.h>

#include "epifuse/gemm.hpp"
#include "epifuse/sm90/launch.hpp"

namespace epifuse::detail {

struct Sm90GemmKernelEntry {
  GemmKernelInfo info;
  // Launches on `stream`; args are validated and match info's dtypes and reduction support.
  Status (*run)(const GemmArgs& args, const sm90::LaunchConfig& config, cudaStream_t stream);
  std::size_t (*workspace_bytes)(const GemmArgs& args, const sm90::LaunchConfig& config);
};

const std::vector<const Sm90GemmKernelEntry*>& sm90_gemm_kernels();

}  // namespace epifuse::detail

// Which compiled sm90 kernel runs a GEMM, and with which launch knobs.
#pragma once

#include "dispatch/sm90_kernel_registry.hpp"

namespace epifuse::detail {

struct Sm90Choice {
  const Sm90GemmKernelEntry* kernel = nullptr;
  sm90::LaunchConfig config;
};

// For validated args with M, N > 0. Honours args.kernel when it names a compatible kernel.
Status choose_sm90_gemm(const GemmArgs& args, const sm90::LaunchConfig& device_defaults, Sm90Choice* choice);

}  // namespace epifuse::detail

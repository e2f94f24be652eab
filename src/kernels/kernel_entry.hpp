// A compiled kernel as dispatch sees it: its key and a launcher for its op, CUTLASS-free. Each
// generated kernel source (cmake/kernel_table.cmake) defines one entry; dispatch/registry.cpp lists them.
#pragma once

#include <cstddef>
#include <variant>

#include <cuda_runtime_api.h>

#include "epifuse/detail/launch_plan.hpp"
#include "epifuse/gated_mlp.hpp"
#include "epifuse/gemm.hpp"
#include "epifuse/grouped_gated_mlp.hpp"
#include "epifuse/grouped_gemm.hpp"
#include "epifuse/kernel_key.hpp"

namespace epifuse::detail {

template <class Args>
struct Launcher {
  // Launches on `stream`: args validated, the kernel chosen for them, the workspace checked.
  Status (*run)(const Args& args, const LaunchPlan& plan, cudaStream_t stream) = nullptr;
  std::size_t (*workspace_bytes)(const Args& args, const LaunchPlan& plan) = nullptr;
};

struct KernelEntry {
  KernelKey key;
  std::variant<Launcher<GemmArgs>, Launcher<GatedMlpArgs>, Launcher<GroupedGemmArgs>, Launcher<GroupedGatedMlpArgs>>
      launcher;  // key.op's (and grouping's)
};

}  // namespace epifuse::detail

// An sm90 GEMM kernel with epifuse's run-time epilogue (src/epilogue/sm90_runtime_epilogue.cuh),
// packaged as a registry entry. Each .cu that cmake/sm90_kernels.cmake generates compiles one.
#pragma once

#include "dispatch/sm90_kernel_registry.hpp"
#include "epifuse/sm90/gemm_kernel.cuh"
#include "epilogue/sm90_runtime_epilogue.cuh"

namespace epifuse::sm90 {

template <class Config, EpilogueCoverage kCoverage>
struct RuntimeEpilogueGemm {
  using Epilogue = device::Sm90RuntimeEpilogue<typename Config::TileShape, typename Config::ElementD,
                                               Config::kSwapAB, kCoverage>;
  using Kernel = GemmKernel<Config, typename Epilogue::Tree>;

  static Status run(const GemmArgs& args, const LaunchConfig& config, cudaStream_t stream) {
    // The scalar amax is an atomic max over CTAs: it starts from 0, the identity of max |y|
    // (CUTLASS_SKIP_REDUCTION_INIT leaves this to us; see CMakeLists.txt).
    if (float* amax = args.epilogue.amax) {
      if (cudaError_t err = cudaMemsetAsync(amax, 0, sizeof(float), stream); err != cudaSuccess) {
        return Status::cuda_error(std::string("zeroing amax: ") + cudaGetErrorString(err));
      }
    }
    return Kernel::run(args, Epilogue::arguments(args.epilogue), config, stream);
  }
  static std::size_t workspace_bytes(const GemmArgs& args, const LaunchConfig& config) {
    return Kernel::workspace_bytes(args, Epilogue::arguments(args.epilogue), config);
  }
  static detail::Sm90GemmKernelEntry entry(const char* name) {
    return {Kernel::info(name, kCoverage), &run, &workspace_bytes};
  }
};

}  // namespace epifuse::sm90

// Defines `const detail::Sm90GemmKernelEntry& epifuse::sm90::kernel_<name>()`.
#define EPIFUSE_SM90_RUNTIME_EPILOGUE_GEMM(name, kCoverage, ...)                                     \
  namespace epifuse::sm90 {                                                                         \
  const detail::Sm90GemmKernelEntry& kernel_##name() {                                              \
    static const detail::Sm90GemmKernelEntry entry =                                                \
        RuntimeEpilogueGemm<KernelConfig<__VA_ARGS__>, EpilogueCoverage::kCoverage>::entry("sm90_" #name); \
    return entry;                                                                                   \
  }                                                                                                 \
  }

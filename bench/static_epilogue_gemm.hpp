// Flexibility-cost baselines: epifuse's large-M kernel configuration compiled with the leanest
// epilogue CUTLASS builds, D = cast(acc). Their times against the run-time epilogue kernel with
// every operand absent say what run-time composition costs, and how much of it is C support
// (shared memory and pipeline for a residual) rather than the epilogue's nodes.
#pragma once

#include <cuda_runtime_api.h>

#include "epifuse/gemm.hpp"

namespace epifuse::bench {

// Name of the run-time epilogue kernel with the same configuration.
const char* static_gemm_twin_kernel();

// bf16 → bf16, no C at all; args.epilogue must be left at its defaults.
Status static_gemm(const GemmArgs& args, cudaStream_t stream);

// The same epilogue in a kernel compiled with C support (never loaded), as the run-time kernel is.
Status static_gemm_with_c(const GemmArgs& args, cudaStream_t stream);

}  // namespace epifuse::bench

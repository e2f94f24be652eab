// Flexibility-cost baseline: epifuse's large-M kernel configuration compiled with the leanest
// epilogue CUTLASS builds, D = cast(acc), and no C. Its time against the run-time epilogue
// kernel of the same configuration, with every operand absent, is what run-time composition costs.
#pragma once

#include <cuda_runtime_api.h>

#include "epifuse/gemm.hpp"

namespace epifuse::bench {

// Name of the run-time epilogue kernel with the same configuration.
const char* static_gemm_twin_kernel();

// bf16 → bf16; args.epilogue must be left at its defaults.
Status static_gemm(const GemmArgs& args, cudaStream_t stream);

}  // namespace epifuse::bench

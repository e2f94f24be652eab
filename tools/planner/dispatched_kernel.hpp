// Which kernel epifuse runs for a call on a datasheet GPU, CPU only: dispatch's own rules
// (src/dispatch/select.hpp) over the kernel table of a full build, on the device a Gpu describes.
#pragma once

#include <string>

#include "planner/roofline.hpp"

namespace epifuse::plan {

// For a GEMM D[M,N] = A[M,K]·B[K,N] with no epilogue, or for a gated MLP whose packed gate+up GEMM
// is `shape` (N = 2 x the output width): the kernel's name with the launch knobs dispatch sets
// (as KernelChoice's to_string prints them: "<name> stream_k=share_tail", "<name> splits=2"),
// "cublaslt (delegated)" where epifuse
// hands the call to cuBLASLt (the gated MLP: cuBLASLt's product + epifuse's act·mul, with the
// workspace the size query asks for), or "none: " and why. A Hopper GPU is one whose name holds
// H100 or H200 (an H800 or H20 is not recognized). Its bandwidth stands in for the device's
// peak DRAM bandwidth, which picks the HBM3 rules under 4000 GB/s: the datasheet's for --gpu, a
// measured one for --ceilings or --bandwidth-gbps.
std::string dispatched_kernel(const GemmShape& shape, bool gated, Precision precision, const Gpu& gpu);

}  // namespace epifuse::plan

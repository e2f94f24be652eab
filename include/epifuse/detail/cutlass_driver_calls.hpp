// Every TMA descriptor CUTLASS encodes goes through cuTensorMapEncodeTiled, a driver function.
// Without this header CUTLASS 4.2 looks the function up with cudaGetDriverEntryPointByVersion at
// every encode (0.33 us of CPU each, three or four per launch, measured on an H200 host); with it
// CUTLASS calls epifuse::detail::encode_tensor_map_tiled, which looks it up once per process and
// keeps each thread's descriptors by their arguments. The library still needs no libcuda at link
// time. Include this before any CUTLASS or CuTe header.
#pragma once

#if defined(CUTLASS_CUDA_DRIVER_WRAPPER_CALL) && !defined(EPIFUSE_CUTLASS_DRIVER_CALLS)
#error "a CUTLASS header came before epifuse/detail/cutlass_driver_calls.hpp: include it first"
#endif
#define EPIFUSE_CUTLASS_DRIVER_CALLS

#include <cuda.h>

namespace epifuse::detail {

// cuTensorMapEncodeTiled through a driver entry point resolved on first use, or the descriptor this
// thread encoded before from the same arguments (src/kernels/tensor_map_encode.cpp);
// CUDA_ERROR_NOT_FOUND where the driver has none.
extern decltype(::cuTensorMapEncodeTiled) encode_tensor_map_tiled;

}  // namespace epifuse::detail

// CUTLASS's direct-call mode names the driver function in its wrapper's body only, where this
// macro replaces it; the wrapper's own name (cutlass::call_cuTensorMapEncodeTiled) is pasted
// from the unexpanded token and keeps its name.
#ifndef CUTLASS_ENABLE_DIRECT_CUDA_DRIVER_CALL
#define CUTLASS_ENABLE_DIRECT_CUDA_DRIVER_CALL
#endif
#define cuTensorMapEncodeTiled ::epifuse::detail::encode_tensor_map_tiled
#include <cutlass/cuda_host_adapter.hpp>
#undef cuTensorMapEncodeTiled

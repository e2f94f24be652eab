// Kernel introspection and forcing: which kernels this build compiled, which one a call would
// run, and how to name one. Forcing is by value: set GemmArgs::kernel / GatedMlpArgs::kernel to
// a KernelChoice whose key is one of compiled_kernels(op).
#pragma once

#include <optional>
#include <string_view>
#include <vector>

#include <cuda_runtime_api.h>

#include "epifuse/gated_mlp.hpp"
#include "epifuse/gemm.hpp"
#include "epifuse/kernel_key.hpp"
#include "epifuse/status.hpp"

namespace epifuse {

// Every compiled kernel of `op`, in kernel-table order.
std::vector<KernelKey> compiled_kernels(Op op);

// The compiled kernel whose name(key) is `kernel_name`, if any.
std::optional<KernelKey> find_kernel(std::string_view kernel_name);

// What gemm(args, stream) / gated_mlp(args, stream) would run: validates args and reads the
// stream's device the same way, launches nothing. `choice` is left empty when the call would
// launch no kernel (an empty problem).
Status selected_kernel(const GemmArgs& args, cudaStream_t stream, std::optional<KernelChoice>* choice);
Status selected_kernel(const GatedMlpArgs& args, cudaStream_t stream, std::optional<KernelChoice>* choice);

}  // namespace epifuse

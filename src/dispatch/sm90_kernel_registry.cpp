#include "dispatch/sm90_kernel_registry.hpp"

namespace epifuse::sm90 {
#define EPIFUSE_SM90_KERNEL(name) const detail::Sm90GemmKernelEntry& kernel_##name();
#include "kernel_list.inc"
#undef EPIFUSE_SM90_KERNEL
}  // namespace epifuse::sm90

namespace epifuse::detail {

const std::vector<const Sm90GemmKernelEntry*>& sm90_gemm_kernels() {
  static const std::vector<const Sm90GemmKernelEntry*> kernels = {
#define EPIFUSE_SM90_KERNEL(name) &sm90::kernel_##name(),
#include "kernel_list.inc"
#undef EPIFUSE_SM90_KERNEL
  };
  return kernels;
}

}  // namespace epifuse::detail

#include "dispatch/sm90_gated_registry.hpp"

namespace epifuse::sm90 {
#define EPIFUSE_SM90_GATED_KERNEL(name) const detail::Sm90GatedKernelEntry& gated_kernel_##name();
#include "gated_kernel_list.inc"
#undef EPIFUSE_SM90_GATED_KERNEL
}  // namespace epifuse::sm90

namespace epifuse::detail {

const std::vector<const Sm90GatedKernelEntry*>& sm90_gated_kernels() {
  static const std::vector<const Sm90GatedKernelEntry*> kernels = {
#define EPIFUSE_SM90_GATED_KERNEL(name) &sm90::gated_kernel_##name(),
#include "gated_kernel_list.inc"
#undef EPIFUSE_SM90_GATED_KERNEL
  };
  return kernels;
}

}  // namespace epifuse::detail

// Every row of the kernel table (cmake/kernels_*.cmake), compiled in this build or not: the keys
// the build generated into kernel_table.inc. Heuristics are tested against it without a kernel.
#pragma once

#include <vector>

#include "epifuse/kernel_key.hpp"

namespace epifuse::detail {

const std::vector<KernelKey>& kernel_table();

}  // namespace epifuse::detail

#include "dispatch/kernel_table.hpp"

namespace epifuse::detail {

const std::vector<KernelKey>& kernel_table() {
  static const std::vector<KernelKey> table = [] {
    std::vector<KernelKey> rows;
#include "kernel_table.inc"
    return rows;
  }();
  return table;
}

}  // namespace epifuse::detail

#include "dispatch/registry.hpp"

namespace epifuse::kernels {
#define EPIFUSE_COMPILED_KERNEL(id) const detail::KernelEntry& entry_##id();
#include "compiled_kernels.inc"
#undef EPIFUSE_COMPILED_KERNEL
}  // namespace epifuse::kernels

namespace epifuse::detail {

const std::vector<const KernelEntry*>& compiled_entries() {
  static const std::vector<const KernelEntry*> entries = {
#define EPIFUSE_COMPILED_KERNEL(id) &kernels::entry_##id(),
#include "compiled_kernels.inc"
#undef EPIFUSE_COMPILED_KERNEL
  };
  return entries;
}

const std::vector<KernelKey>& compiled_keys() {
  static const std::vector<KernelKey> keys = [] {
    std::vector<KernelKey> k;
    for (const KernelEntry* e : compiled_entries()) k.push_back(e->key);
    return k;
  }();
  return keys;
}

const std::vector<KernelKey>& compiled_whole_tile_keys() {
  static const std::vector<KernelKey> keys = [] {
    std::vector<KernelKey> k;
    for (const KernelKey& key : compiled_keys()) {
      if (key.decomposition == Decomposition::kDataParallel) k.push_back(key);
    }
    return k;
  }();
  return keys;
}

const KernelEntry* find_entry(const KernelKey& key) {
  for (const KernelEntry* e : compiled_entries()) {
    if (e->key == key) return e;
  }
  return nullptr;
}

}  // namespace epifuse::detail

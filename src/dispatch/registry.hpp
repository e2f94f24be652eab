// Every compiled kernel, one registry for every op: the table rows this build compiled
// (compiled_kernels.inc), each with its launcher.
#pragma once

#include <vector>

#include "epifuse/kernel_key.hpp"
#include "kernels/kernel_entry.hpp"

namespace epifuse::detail {

// In kernel-table order.
const std::vector<const KernelEntry*>& compiled_entries();
const std::vector<KernelKey>& compiled_keys();
// The compiled keys of kernels that run whole tiles (no stream-K: no workspace for shared tiles).
const std::vector<KernelKey>& compiled_whole_tile_keys();

// The entry of `key`, or null when this build did not compile it.
const KernelEntry* find_entry(const KernelKey& key);

}  // namespace epifuse::detail

// A forced kernel in a sweep may need more workspace than the dispatched one its problem was
// sized for: give its arguments a buffer of their own from a pool that outlives the timing.
#pragma once

#include <cstddef>
#include <vector>

#include "testing/device_buffer.hpp"

namespace epifuse::bench {

template <class Args>
void fit_workspace(Args* args, std::size_t needed, std::vector<testing::DeviceBuffer>* pool) {
  if (needed <= args->workspace_bytes) return;
  pool->emplace_back(needed, 0);
  args->workspace = pool->back().data();
  args->workspace_bytes = needed;
}

}  // namespace epifuse::bench

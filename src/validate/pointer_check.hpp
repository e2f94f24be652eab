// The opt-in pointer check: with EPIFUSE_CHECK_POINTERS=1 in the environment, every operand must
// be memory the kernel's device can address as its own (device memory of that device, or managed
// memory); host memory and another device's memory are rejected before anything is launched.
// Off by default: it asks the driver about each pointer on every call.
#pragma once

#include <utility>
#include <vector>

#include "epifuse/status.hpp"

namespace epifuse::detail {

using NamedPointer = std::pair<const char*, const void*>;

bool pointer_check_enabled();

// Null pointers are skipped (absent operands).
Status check_device_pointers(const char* op, const std::vector<NamedPointer>& pointers, int device);

}  // namespace epifuse::detail

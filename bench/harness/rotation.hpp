// Operand rotation: sets of inputs and outputs rotated between timed iterations so that together
// they exceed 5× L2, and every iteration reads its operands from device memory, as in a model's
// layer, whose weights L2 does not hold from one call to the next. Sets of under 4 MiB (with a
// Hopper's 50 MiB L2) rotate through less than 5× L2: 64 sets of 1 MiB still exceed L2, and in
// graph mode each set costs a captured graph per implementation.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstddef>

namespace epifuse::bench {

constexpr int kMaxOperandSets = 64;

inline int operand_sets(std::size_t set_bytes, std::size_t l2_bytes) {
  return std::clamp(static_cast<int>(std::ceil(5.0 * static_cast<double>(l2_bytes) / static_cast<double>(set_bytes))), 1,
                    kMaxOperandSets);
}

}  // namespace epifuse::bench

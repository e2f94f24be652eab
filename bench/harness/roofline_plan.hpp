// Each shape's roofline on datasheet ceilings (H100, H200), printed when there is no GPU to
// measure on. `gated`: N is the output width of a gated MLP, whose GEMM is M × 2N × K.
#pragma once

#include <vector>

#include "bench/harness/shapes.hpp"

namespace epifuse::bench {

void print_roofline(const std::vector<Shape>& shapes, bool gated);

}  // namespace epifuse::bench

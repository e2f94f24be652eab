// What the suite would measure, with each shape's roofline on datasheet ceilings: printed when
// there is no GPU to measure on.
#pragma once

#include <vector>

#include "bench/gemm_suite.hpp"

namespace epifuse::bench {

void print_gemm_plan(const std::vector<Shape>& shapes);

// The gated suite's plan: what it would run and the roofline of each shape.
void print_gated_plan(const std::vector<Shape>& shapes);

}  // namespace epifuse::bench

// A Gpu from an epifuse-bench results JSON: the ceilings the bench measured at start (cuBLASLt
// bf16 peak, copy bandwidth) and the device's SM count.
#pragma once

#include <string>

#include "planner/roofline.hpp"

namespace epifuse::plan {

bool gpu_from_bench_json(const std::string& path, Gpu* gpu, std::string* error);

}  // namespace epifuse::plan

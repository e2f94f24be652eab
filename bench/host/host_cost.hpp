// Host cost of a call: the CPU time epifuse spends in gemm() / gated_mlp() before the launch is
// queued, over many M = 1 calls (the decode case, where host time can exceed the kernel's).
#pragma once

#include <nlohmann/json.hpp>

namespace epifuse::bench {

// Times `calls` calls of each op, returns per-op rows (median, mean, p90 CPU µs per call).
nlohmann::json measure_host_cost(int calls);

}  // namespace epifuse::bench

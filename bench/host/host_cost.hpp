// Host cost of a call: the CPU time epifuse spends in gemm() / gated_mlp() (and the MoE ops,
// grouped_gated_mlp() and moe_mlp()) before the launches are queued, over many one-token calls
// (the decode case, where host time can exceed the kernel's).
#pragma once

#include <nlohmann/json.hpp>

namespace epifuse::bench {

// Times `calls` calls of each op, returns per-op rows (median, mean, p90 CPU µs per call).
nlohmann::json measure_host_cost(int calls);

}  // namespace epifuse::bench

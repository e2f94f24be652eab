// The gated-MLP accuracy study: M = N = K = size, `inits` random draws each; the fused kernel and
// the unfused bf16 path (cuBLASLt GEMM → bf16 → act·mul) against fp64 (cuBLAS DGEMM on the same
// inputs), and against each other.
#pragma once

#include <cstdint>
#include <vector>

#include <nlohmann/json.hpp>

namespace epifuse::bench {

void run_gated_accuracy(const std::vector<std::int64_t>& sizes, int inits, nlohmann::json* out);

}  // namespace epifuse::bench

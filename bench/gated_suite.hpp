// epifuse-bench gated: the fused gated MLP against cuBLASLt on Llama-3 MLP shapes, with the
// unfused baselines in the same run, and the accuracy table.
#pragma once

#include <cstdint>
#include <vector>

#include "bench/ceilings.hpp"
#include "bench/device_facts.hpp"
#include "bench/gemm_suite.hpp"
#include "bench/results.hpp"

namespace epifuse::bench {

struct GatedSuiteOptions {
  std::vector<Shape> shapes;  // (M, N, K), N the output width (the GEMM is M × 2N × K)
  bool check = true;
  bool sweep = false;  // also time every compiled bf16 gated kernel
  TimingOptions timing = {300.0, 8, 1, 40};
};

// Llama-3 8B (K 4096, N 14336), 70B (8192, 28672), 405B (16384, 53248) at M = 1 … 16384.
std::vector<Shape> default_gated_shapes();

void run_gated_suite(const GatedSuiteOptions& options, const DeviceFacts& device, const Ceilings& ceilings,
                     std::vector<Row>* rows);

// The accuracy table: M = N = K = size, `inits` random draws each; fused and the unfused bf16
// path (cuBLASLt GEMM → bf16 → act·mul) against fp64 (cuBLAS DGEMM on the same inputs).
void run_gated_accuracy(const std::vector<std::int64_t>& sizes, int inits, nlohmann::json* out);

}  // namespace epifuse::bench

// `epifuse-bench gemm`: epifuse's GEMM with its epilogues against cuBLASLt, same process, same run.
#pragma once

#include <cstdint>
#include <cstdio>
#include <string>
#include <vector>

#include "bench/ceilings.hpp"
#include "bench/device_facts.hpp"
#include "bench/results.hpp"
#include "bench/timing.hpp"

namespace epifuse::bench {

struct Shape {
  std::int64_t M = 0, N = 0, K = 0;
};

// Runs `run_shape` on each shape with a progress line on stderr ("[op] shape i/n: MxNxK").
template <class RunShape>
void for_each_shape(const char* op, const std::vector<Shape>& shapes, RunShape run_shape) {
  for (std::size_t i = 0; i < shapes.size(); ++i) {
    const Shape& s = shapes[i];
    std::fprintf(stderr, "[%s] shape %zu/%zu: %lldx%lldx%lld\n", op, i + 1, shapes.size(), static_cast<long long>(s.M),
                 static_cast<long long>(s.N), static_cast<long long>(s.K));
    run_shape(s);
  }
}

struct GemmSuiteOptions {
  std::vector<Shape> shapes;
  bool check = true;   // verify every implementation against the fp64 reference before timing it
  bool sweep = false;  // also time every compiled bf16 kernel under several launch knobs (tuning)
  TimingOptions timing;
};

// The shapes: Llama-3-70B's gate/up projection (N = 28672, K = 8192) at 64…4096 tokens,
// and a square 4096×8192×8192.
std::vector<Shape> default_gemm_shapes();

// Names of the epilogues the suite times with epifuse, in order.
std::vector<std::string> gemm_suite_epilogues();

void run_gemm_suite(const GemmSuiteOptions& options, const DeviceFacts& device, const Ceilings& ceilings,
                    std::vector<Row>* rows);

}  // namespace epifuse::bench

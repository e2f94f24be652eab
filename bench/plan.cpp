#include "bench/plan.hpp"

#include <algorithm>

#include <fmt/format.h>

namespace epifuse::bench {
namespace {

// Datasheet peaks (dense bf16, HBM bandwidth): leads only, the bench measures its own.
struct Datasheet {
  const char* name;
  double bf16_tflops;
  double hbm_gbps;
};
constexpr Datasheet kGpus[] = {{"H100 SXM", 989.4, 3350.0}, {"H200 SXM", 989.4, 4800.0}};

}  // namespace

void print_gemm_plan(const std::vector<Shape>& shapes) {
  std::string epilogues;
  for (const std::string& name : gemm_suite_epilogues()) epilogues += (epilogues.empty() ? "" : ", ") + name;
  fmt::print("epifuse-bench gemm would run, per shape: cuBLASLt GEMM (plain and its BIAS+GELU epilogue),\n"
             "cuBLASLt GEMM + a separate bias+GELU kernel, and epifuse with the epilogues\n{};\n"
             "each checked against an fp64 reference, then timed, interleaved.\n\n",
             epilogues);
  fmt::print("Roofline on datasheet ceilings (bf16 in/out; bytes = A + B + D read/written once):\n");
  fmt::print("{:>6} {:>6} {:>6} {:>10} {:>9} {:>8}", "M", "N", "K", "GFLOP", "MB", "FLOP/B");
  for (const Datasheet& g : kGpus) fmt::print("  {:>22}", fmt::format("{} floor us", g.name));
  fmt::print("\n");
  for (const Shape& s : shapes) {
    const double flops = 2.0 * s.M * s.N * s.K;
    const double bytes = 2.0 * (s.M * s.K + s.N * s.K + s.M * s.N);
    fmt::print("{:>6} {:>6} {:>6} {:>10.1f} {:>9.1f} {:>8.1f}", s.M, s.N, s.K, flops / 1e9, bytes / 1e6, flops / bytes);
    for (const Datasheet& g : kGpus) {
      const double compute_us = flops / (g.bf16_tflops * 1e6);
      const double memory_us = bytes / (g.hbm_gbps * 1e3);
      fmt::print("  {:>13.1f} {:<8}", std::max(compute_us, memory_us), compute_us >= memory_us ? "compute" : "memory");
    }
    fmt::print("\n");
  }
  fmt::print("\nRidge points: {}\n", [] {
    std::string s;
    for (const Datasheet& g : kGpus) s += fmt::format("{} {:.0f} FLOP/B  ", g.name, g.bf16_tflops * 1e12 / (g.hbm_gbps * 1e9));
    return s;
  }());
}

}  // namespace epifuse::bench

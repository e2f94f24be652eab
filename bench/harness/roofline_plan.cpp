#include "bench/harness/roofline_plan.hpp"

#include <algorithm>

#include <fmt/format.h>

#include "planner/roofline.hpp"

namespace epifuse::bench {
namespace {

// Datasheet peaks from the planner (leads only: the bench measures its own ceilings).
std::vector<plan::Gpu> hopper_datasheets() {
  std::vector<plan::Gpu> gpus;
  for (const char* key : {"h100", "h200"}) {
    plan::Gpu g;
    plan::find_gpu(key, &g);
    gpus.push_back(g);
  }
  return gpus;
}

}  // namespace

void print_roofline(const std::vector<Shape>& shapes, bool gated) {
  fmt::print("{:>6} {:>6} {:>6} {:>10} {:>9} {:>8}", "M", "N", "K", "GFLOP", "MB", "FLOP/B");
  const std::vector<plan::Gpu> gpus = hopper_datasheets();
  for (const plan::Gpu& g : gpus) fmt::print("  {:>22}", fmt::format("{} floor us", g.name));
  fmt::print("\n");
  for (const Shape& s : shapes) {
    const double gemm_n = gated ? 2.0 * s.N : static_cast<double>(s.N);  // gated: gate and up columns
    const double flops = 2.0 * s.M * gemm_n * s.K;
    const double bytes = 2.0 * (s.M * s.K + gemm_n * s.K + s.M * s.N);
    fmt::print("{:>6} {:>6} {:>6} {:>10.1f} {:>9.1f} {:>8.1f}", s.M, s.N, s.K, flops / 1e9, bytes / 1e6, flops / bytes);
    for (const plan::Gpu& g : gpus) {
      const double compute_us = flops / (g.fp16_tflops * 1e6);
      const double memory_us = bytes / (g.bandwidth_gbps * 1e3);
      fmt::print("  {:>13.1f} {:<8}", std::max(compute_us, memory_us), compute_us >= memory_us ? "compute" : "memory");
    }
    fmt::print("\n");
  }
  std::string ridges;
  for (const plan::Gpu& g : gpus) ridges += fmt::format("{} {:.0f} FLOP/B  ", g.name, g.ridge(plan::Precision::kBF16));
  fmt::print("\nRidge points: {}\n(epifuse-plan has the full method: padding, waves, models.)\n", ridges);
}

}  // namespace epifuse::bench

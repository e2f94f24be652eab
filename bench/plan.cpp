#include "bench/plan.hpp"

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

// Roofline rows: FLOPs and minimum bytes of each shape, the floor on each datasheet GPU.
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

}  // namespace

void print_gated_plan(const std::vector<Shape>& shapes) {
  fmt::print("epifuse-bench gated would run, per shape (N = output width, the GEMM is M x 2N x K): the fused\n"
             "SwiGLU kernel, cuBLASLt GEMM [M,2N] alone, cuBLASLt + a separate act*mul kernel, and the eager\n"
             "path (cuBLASLt, act kernel, mul kernel); each checked against an fp64 reference, then timed.\n"
             "Activation memory per path: fused M*N, cuBLASLt+act 3*M*N, eager 4*M*N elements.\n\n");
  fmt::print("Roofline on datasheet ceilings (bf16; bytes = x + both weights + out, read/written once):\n");
  print_roofline(shapes, /*gated=*/true);
}

void print_gemm_plan(const std::vector<Shape>& shapes) {
  std::string epilogues;
  for (const std::string& name : gemm_suite_epilogues()) epilogues += (epilogues.empty() ? "" : ", ") + name;
  fmt::print("epifuse-bench gemm would run, per shape: cuBLASLt GEMM (plain and its BIAS+GELU epilogue),\n"
             "cuBLASLt GEMM + a separate bias+GELU kernel, and epifuse with the epilogues\n{};\n"
             "each checked against an fp64 reference, then timed, interleaved.\n\n",
             epilogues);
  fmt::print("Roofline on datasheet ceilings (bf16 in/out; bytes = A + B + D read/written once):\n");
  print_roofline(shapes, /*gated=*/false);
}

}  // namespace epifuse::bench

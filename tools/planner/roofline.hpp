// The roofline method of seed 003 for one GEMM D[M,N] = A[M,K]·B[K,N]: work, minimum traffic,
// arithmetic intensity against a GPU's ridge point, and what tiles do to it (M padding, CTA
// grid, wave quantization). Host-only, no GPU needed.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace epifuse::plan {

enum class Precision { kFP16, kBF16, kFP8 };

const char* to_string(Precision p);
bool parse_precision(const std::string& text, Precision* p);
double element_bytes(Precision p);

// Peak dense tensor throughput per precision and memory bandwidth.
struct Gpu {
  std::string name;
  double fp16_tflops = 0;  // also bf16
  double fp8_tflops = 0;   // 0: no fp8 tensor cores
  double bandwidth_gbps = 0;
  int sm_count = 0;
  std::string source;  // "datasheet", "user", or the bench JSON it was read from

  double peak_tflops(Precision p) const { return p == Precision::kFP8 ? fp8_tflops : fp16_tflops; }
  // FLOP per byte at which compute and memory time are equal.
  double ridge(Precision p) const { return peak_tflops(p) * 1e12 / (bandwidth_gbps * 1e9); }
};

// Built-in datasheet GPUs: "h100" (H100 SXM), "h200" (H200 SXM), "a100" (A100 SXM 80GB).
const std::vector<Gpu>& builtin_gpus();
bool find_gpu(const std::string& key, Gpu* gpu);

struct Tile {
  int m = 128, n = 256;
};

struct GemmShape {
  std::int64_t M = 0, N = 0, K = 0;
};

struct GemmPlan {
  GemmShape shape;
  Precision precision = Precision::kBF16;
  double flops = 0;       // 2·M·N·K
  double bytes = 0;       // A, B read and D written once: elem·(MK + KN + MN)
  double ai = 0;          // flops / bytes
  double ridge = 0;       // of the GPU at this precision
  bool compute_bound = false;
  double attainable_tflops = 0;  // min(peak, ai · bandwidth)
  double floor_us = 0;           // max(flops / peak, bytes / bandwidth)
  double m_padding_efficiency[3] = {0, 0, 0};  // M / (M rounded up to 16, 64, 128 rows)
  Tile tile;
  std::int64_t ctas = 0;      // ⌈M / tile.m⌉ · ⌈N / tile.n⌉
  double waves = 0;           // ctas / SMs
  double wave_efficiency = 0; // ctas / (⌈waves⌉ · SMs)
  std::string epifuse_kernel;  // what epifuse runs (planner/dispatched_kernel.hpp); empty: not asked
};

constexpr int kPaddingTiles[3] = {16, 64, 128};

GemmPlan plan_gemm(const GemmShape& shape, Precision precision, const Gpu& gpu, const Tile& tile);

}  // namespace epifuse::plan

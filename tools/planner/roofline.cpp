#include "planner/roofline.hpp"

#include <algorithm>
#include <cctype>
#include <cmath>

namespace epifuse::plan {

const char* to_string(Precision p) {
  switch (p) {
    case Precision::kFP16: return "fp16";
    case Precision::kBF16: return "bf16";
    case Precision::kFP8: return "fp8";
  }
  return "?";
}

bool parse_precision(const std::string& text, Precision* p) {
  if (text == "fp16") *p = Precision::kFP16;
  else if (text == "bf16") *p = Precision::kBF16;
  else if (text == "fp8") *p = Precision::kFP8;
  else return false;
  return true;
}

double element_bytes(Precision p) { return p == Precision::kFP8 ? 1.0 : 2.0; }

const std::vector<Gpu>& builtin_gpus() {
  // Dense (no sparsity) tensor-core peaks and HBM bandwidth from NVIDIA's datasheets.
  static const std::vector<Gpu> gpus = {
      {"H100 SXM", 989.4, 1978.9, 3350.0, 132, "datasheet"},
      {"H200 SXM", 989.4, 1978.9, 4800.0, 132, "datasheet"},
      {"A100 SXM 80GB", 312.0, 0.0, 2039.0, 108, "datasheet"},
  };
  return gpus;
}

bool find_gpu(const std::string& key, Gpu* gpu) {
  std::string k = key;
  std::transform(k.begin(), k.end(), k.begin(), [](unsigned char c) { return std::tolower(c); });
  const char* keys[] = {"h100", "h200", "a100"};
  for (std::size_t i = 0; i < 3; ++i) {
    if (k == keys[i]) {
      *gpu = builtin_gpus()[i];
      return true;
    }
  }
  return false;
}

GemmPlan plan_gemm(const GemmShape& s, Precision precision, const Gpu& gpu, const Tile& tile) {
  GemmPlan p;
  p.shape = s;
  p.precision = precision;
  const double M = static_cast<double>(s.M), N = static_cast<double>(s.N), K = static_cast<double>(s.K);
  p.flops = 2.0 * M * N * K;
  p.bytes = element_bytes(precision) * (M * K + K * N + M * N);
  p.ai = p.bytes > 0 ? p.flops / p.bytes : 0.0;
  p.ridge = gpu.ridge(precision);
  p.compute_bound = p.ai >= p.ridge;
  const double peak = gpu.peak_tflops(precision);
  p.attainable_tflops = std::min(peak, p.ai * gpu.bandwidth_gbps * 1e9 / 1e12);
  p.floor_us = std::max(peak > 0 ? p.flops / (peak * 1e6) : INFINITY, p.bytes / (gpu.bandwidth_gbps * 1e3));
  for (int i = 0; i < 3; ++i) {
    const double padded = std::ceil(M / kPaddingTiles[i]) * kPaddingTiles[i];
    p.m_padding_efficiency[i] = padded > 0 ? M / padded : 0.0;
  }
  p.tile = tile;
  p.ctas = static_cast<std::int64_t>(std::ceil(M / tile.m) * std::ceil(N / tile.n));
  p.waves = gpu.sm_count > 0 ? static_cast<double>(p.ctas) / gpu.sm_count : 0.0;
  p.wave_efficiency = p.ctas > 0 && gpu.sm_count > 0 ? p.waves / std::ceil(p.waves) : 0.0;
  return p;
}

}  // namespace epifuse::plan

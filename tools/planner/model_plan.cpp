#include "planner/model_plan.hpp"

#include <algorithm>
#include <cmath>

#include <fmt/format.h>

namespace epifuse::plan {

ModelPlan plan_model(const ModelConfig& model, Precision precision, const Gpu& gpu, const Tile& tile,
                     const std::vector<std::int64_t>& tokens, const std::vector<std::int64_t>& chunks) {
  ModelPlan p;
  p.model = model;
  p.precision = precision;
  p.gpu = gpu;
  p.tokens = tokens;
  const double elem = element_bytes(precision);
  double largest_buffer = 0;
  for (const LayerKind& kind : layer_kinds(model)) {
    LayerKindPlan k;
    k.name = kind.name;
    k.count = kind.count;
    for (const LayerGemm& g : kind.gemms) {
      GemmRow row;
      row.gemm = g;
      row.flops_per_token = 2.0 * g.N * g.K * g.per_token;
      k.flops_per_token += row.flops_per_token;
      row.routed = model.experts > 0 && g.name.rfind("expert", 0) == 0;
      for (std::int64_t t : tokens) {
        std::int64_t rows = t;
        if (row.routed) rows = static_cast<std::int64_t>(std::ceil(t * g.per_token / static_cast<double>(model.experts)));
        row.at_tokens.push_back(plan_gemm({rows, g.N, g.K}, precision, gpu, tile));
      }
      if (g.gated) {
        k.gated_buffer_bytes_per_token += g.N * elem * g.per_token;
        k.gated_traffic_saved_per_token += 2.0 * g.N * elem * g.per_token;
      }
      k.gemms.push_back(row);
    }
    for (GemmRow& row : k.gemms) row.pct_of_layer = 100.0 * row.flops_per_token / k.flops_per_token;
    p.flops_per_token += k.flops_per_token * k.count;
    largest_buffer = std::max(largest_buffer, k.gated_buffer_bytes_per_token);
    p.kinds.push_back(k);
  }
  p.kv_bytes_per_token = kv_bytes_per_token(model, precision);
  for (std::int64_t c : chunks) {
    const double saved = largest_buffer * static_cast<double>(c);
    p.chunks.push_back({c, saved, p.kv_bytes_per_token > 0 ? saved / p.kv_bytes_per_token : 0.0});
  }
  return p;
}

nlohmann::json to_json(const GemmPlan& p, const Gpu& gpu) {
  nlohmann::json out = {{"M", p.shape.M},
          {"N", p.shape.N},
          {"K", p.shape.K},
          {"dtype", to_string(p.precision)},
          {"gpu", gpu.name},
          {"flops", p.flops},
          {"bytes", p.bytes},
          {"ai", p.ai},
          {"ridge", p.ridge},
          {"regime", p.compute_bound ? "compute" : "memory"},
          {"attainable_tflops", p.attainable_tflops},
          {"floor_us", p.floor_us},
          {"m_padding_efficiency", {{"16", p.m_padding_efficiency[0]}, {"64", p.m_padding_efficiency[1]},
                                    {"128", p.m_padding_efficiency[2]}}},
          {"tile", {p.tile.m, p.tile.n}},
          {"ctas", p.ctas},
          {"sm_count", gpu.sm_count},
          {"waves", p.waves},
          {"wave_efficiency", p.wave_efficiency}};
  if (!p.epifuse_kernel.empty()) out["epifuse_kernel"] = p.epifuse_kernel;
  return out;
}

nlohmann::json to_json(const ModelPlan& p) {
  nlohmann::json kinds = nlohmann::json::array();
  for (const LayerKindPlan& k : p.kinds) {
    nlohmann::json gemms = nlohmann::json::array();
    for (const GemmRow& row : k.gemms) {
      nlohmann::json at = nlohmann::json::array();
      for (const GemmPlan& g : row.at_tokens) at.push_back(to_json(g, p.gpu));
      gemms.push_back({{"name", row.gemm.name},
                       {"N", row.gemm.N},
                       {"K", row.gemm.K},
                       {"per_token", row.gemm.per_token},
                       {"gated", row.gemm.gated},
                       {"routed", row.routed},
                       {"flops_per_token", row.flops_per_token},
                       {"pct_of_layer_flops", row.pct_of_layer},
                       {"at_tokens", at}});
    }
    kinds.push_back({{"kind", k.name},
                     {"layers", k.count},
                     {"flops_per_token_per_layer", k.flops_per_token},
                     {"gated_traffic_saved_per_token_bytes", k.gated_traffic_saved_per_token},
                     {"gated_buffer_per_token_bytes", k.gated_buffer_bytes_per_token},
                     {"gemms", gemms}});
  }
  nlohmann::json chunks = nlohmann::json::array();
  for (const ChunkSaving& c : p.chunks) {
    chunks.push_back({{"chunk", c.chunk}, {"saved_bytes", c.saved_bytes}, {"extra_kv_tokens", c.extra_kv_tokens}});
  }
  return {{"model", p.model.name},
          {"dtype", to_string(p.precision)},
          {"gpu", {{"name", p.gpu.name},
                   {"peak_tflops", p.gpu.peak_tflops(p.precision)},
                   {"bandwidth_gbps", p.gpu.bandwidth_gbps},
                   {"sm_count", p.gpu.sm_count},
                   {"source", p.gpu.source}}},
          {"ridge", p.gpu.ridge(p.precision)},
          {"tokens", p.tokens},
          {"flops_per_token", p.flops_per_token},
          {"kv_bytes_per_token", p.kv_bytes_per_token},
          {"layer_kinds", kinds},
          {"chunked_prefill", chunks}};
}

namespace {

void print_gemm_header(bool kernels) {
  fmt::print("{:>7} {:>7} {:>7} {:>9} {:>8} {:>7} {:>8} {:>9} {:>10} {:>6} {:>6} {:>6} {:>6} {:>6} {:>5}{}\n", "M", "N",
             "K", "GFLOP", "MB", "AI", "regime", "max TF/s", "floor us", "pad16", "pad64", "pad128", "CTAs", "waves",
             "eff", kernels ? "  epifuse runs" : "");
}

void print_gemm_row(const GemmPlan& p) {
  fmt::print("{:>7} {:>7} {:>7} {:>9.2f} {:>8.1f} {:>7.1f} {:>8} {:>9.1f} {:>10.1f} {:>5.1f}% {:>5.1f}% {:>5.1f}% {:>6} "
             "{:>6.2f} {:>4.0f}%{}{}\n",
             p.shape.M, p.shape.N, p.shape.K, p.flops / 1e9, p.bytes / 1e6, p.ai, p.compute_bound ? "compute" : "memory",
             p.attainable_tflops, p.floor_us, 100 * p.m_padding_efficiency[0], 100 * p.m_padding_efficiency[1],
             100 * p.m_padding_efficiency[2], p.ctas, p.waves, 100 * p.wave_efficiency,
             p.epifuse_kernel.empty() ? "" : "  ", p.epifuse_kernel);
}

bool any_kernel(const std::vector<GemmPlan>& plans) {
  for (const GemmPlan& p : plans) {
    if (!p.epifuse_kernel.empty()) return true;
  }
  return false;
}

void print_gpu(const Gpu& gpu, Precision precision) {
  fmt::print("{} ({}): {:.1f} TFLOP/s {}, {:.0f} GB/s, {} SMs; ridge {:.1f} FLOP/B\n", gpu.name, gpu.source,
             gpu.peak_tflops(precision), to_string(precision), gpu.bandwidth_gbps, gpu.sm_count, gpu.ridge(precision));
}

}  // namespace

void print_gemm_plans(const std::vector<GemmPlan>& plans, const Gpu& gpu) {
  if (plans.empty()) return;
  print_gpu(gpu, plans.front().precision);
  fmt::print("bytes: A, B read and D written once; pad: M-padding efficiency per row-tile; CTAs and waves "
             "for a {}x{} tile\n\n", plans.front().tile.m, plans.front().tile.n);
  print_gemm_header(any_kernel(plans));
  for (const GemmPlan& p : plans) print_gemm_row(p);
}

void print_model_plan(const ModelPlan& p) {
  fmt::print("{}, {}\n", p.model.name, to_string(p.precision));
  print_gpu(p.gpu, p.precision);
  fmt::print("{:.1f} GFLOP per token over {} layers; KV cache {:.0f} bytes per token\n", p.flops_per_token / 1e9,
             p.model.layers, p.kv_bytes_per_token);
  for (const LayerKindPlan& k : p.kinds) {
    fmt::print("\n{} layers (x{}): {:.1f} M FLOPs per token per layer\n", k.name, k.count, k.flops_per_token / 1e6);
    fmt::print("  {:<24} {:>7} {:>7} {:>6} {:>12} {:>7}\n", "GEMM", "N", "K", "x/tok", "MFLOP/token", "% layer");
    for (const GemmRow& row : k.gemms) {
      fmt::print("  {:<24} {:>7} {:>7} {:>6.0f} {:>12.1f} {:>6.1f}%\n", row.gemm.name, row.gemm.N, row.gemm.K,
                 row.gemm.per_token, row.flops_per_token / 1e6, row.pct_of_layer);
    }
    if (k.gated_traffic_saved_per_token > 0) {
      fmt::print("  fused gate+up saves {:.0f} bytes of traffic per token (the [2N] intermediate written and read "
                 "back), and its allocation\n", k.gated_traffic_saved_per_token);
    }
    for (const GemmRow& row : k.gemms) {
      fmt::print("\n  {}{}\n", row.gemm.name, row.routed ? " (per expert: M = tokens x k / experts)" : "");
      fmt::print("  ");
      print_gemm_header(any_kernel(row.at_tokens));
      for (const GemmPlan& g : row.at_tokens) {
        fmt::print("  ");
        print_gemm_row(g);
      }
    }
  }
  if (!p.chunks.empty()) fmt::print("\nChunked prefill: activation memory the fused gated MLP never allocates\n");
  for (const ChunkSaving& c : p.chunks) {
    fmt::print("  chunk {:>5}: {:>8.1f} MB saved = {:>8.1f} more KV-cache tokens\n", c.chunk, c.saved_bytes / 1e6,
               c.extra_kv_tokens);
  }
}

}  // namespace epifuse::plan

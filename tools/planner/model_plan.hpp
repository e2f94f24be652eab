// A model's per-layer GEMMs through the roofline at several token counts, and what the fused
// gated MLP saves: traffic per token, and for chunked prefill the KV-cache tokens that the
// [chunk, 2N] intermediate it never allocates would hold.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "planner/models.hpp"
#include "planner/roofline.hpp"

namespace epifuse::plan {

struct GemmRow {
  LayerGemm gemm;
  double flops_per_token = 0;  // 2·N·K·per_token
  double pct_of_layer = 0;
  bool routed = false;              // a routed expert: it sees tokens·k/experts rows on average
  std::vector<GemmPlan> at_tokens;  // one per token count
};

struct LayerKindPlan {
  std::string name;
  int count = 0;
  double flops_per_token = 0;  // one layer
  std::vector<GemmRow> gemms;
  double gated_traffic_saved_per_token = 0;  // bytes: the [2N] intermediate written and read back
  double gated_buffer_bytes_per_token = 0;   // bytes: the [2N] intermediate's allocation
};

struct ChunkSaving {
  std::int64_t chunk = 0;
  double saved_bytes = 0;       // the largest layer's [chunk, 2N] intermediate
  double extra_kv_tokens = 0;   // saved_bytes / KV bytes per token
};

struct ModelPlan {
  ModelConfig model;
  Precision precision = Precision::kBF16;
  Gpu gpu;
  std::vector<std::int64_t> tokens;
  std::vector<LayerKindPlan> kinds;
  double flops_per_token = 0;  // all layers
  double kv_bytes_per_token = 0;
  std::vector<ChunkSaving> chunks;
};

ModelPlan plan_model(const ModelConfig& model, Precision precision, const Gpu& gpu, const Tile& tile,
                     const std::vector<std::int64_t>& tokens, const std::vector<std::int64_t>& chunks);

nlohmann::json to_json(const GemmPlan& p, const Gpu& gpu);
nlohmann::json to_json(const ModelPlan& p);
void print_gemm_plans(const std::vector<GemmPlan>& plans, const Gpu& gpu);
void print_model_plan(const ModelPlan& p);

}  // namespace epifuse::plan

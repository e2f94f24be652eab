// Transformer models as lists of GEMMs per layer, for the planner and the bench's grids: the
// built-in catalogue (Llama-3 8B/70B/405B, Llama-3.2 1B/3B, Qwen2.5 7B/72B, Gemma-2 9B, Phi-3
// medium, Mixtral-8x7B, Qwen2-57B-A14B, DeepSeek-V3) and custom models from JSON.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "planner/roofline.hpp"

namespace epifuse::plan {

struct ModelConfig {
  std::string name;
  std::string source;  // where the sizes come from (the model's published config)
  int layers = 0;
  std::int64_t hidden = 0;
  // Attention: "gqa" (heads, kv_heads, head_dim) or "mla" (DeepSeek's latent attention).
  std::string attention = "gqa";
  std::int64_t heads = 0, kv_heads = 0, head_dim = 0;
  std::int64_t q_lora_rank = 0, kv_lora_rank = 0, qk_nope_dim = 0, qk_rope_dim = 0, v_head_dim = 0;
  // Gated MLPs: a dense one of width `intermediate` in `dense_layers` layers (all layers when
  // there are no experts), and MoE layers with routed and shared experts.
  std::int64_t intermediate = 0;
  int dense_layers = 0;
  std::int64_t experts = 0, experts_per_token = 0, expert_intermediate = 0;
  std::int64_t shared_experts = 0, shared_intermediate = 0;
};

// One GEMM of a layer: [tokens, K] × [K, N], run `per_token` times per token (top-k for routed
// experts). `gated`: a fused gate+up GEMM (N = 2 × the MLP width) that epifuse's gated kernel runs.
struct LayerGemm {
  std::string name;
  std::int64_t N = 0, K = 0;
  double per_token = 1.0;
  bool gated = false;
};

struct LayerKind {
  std::string name;  // "dense" or "moe"
  int count = 0;     // layers of this kind
  std::vector<LayerGemm> gemms;
};

std::vector<LayerKind> layer_kinds(const ModelConfig& m);

// KV-cache bytes one token occupies across all layers.
double kv_bytes_per_token(const ModelConfig& m, Precision p);

const std::vector<ModelConfig>& model_catalogue();
// By catalogue key: llama3-8b, llama3-70b, llama3-405b, mixtral-8x7b, qwen2-57b-a14b, deepseek-v3, qwen2.5-7b,
// qwen2.5-72b, gemma2-9b, phi3-medium, llama3.2-1b, llama3.2-3b.
bool find_model(const std::string& key, ModelConfig* model);
std::vector<std::string> model_keys();

// Reads a custom model from a JSON object with ModelConfig's field names; false and `error` when a
// required field is missing or invalid.
bool model_from_json(const std::string& json_text, ModelConfig* model, std::string* error);

}  // namespace epifuse::plan

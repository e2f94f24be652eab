#include "planner/models.hpp"

#include <nlohmann/json.hpp>

namespace epifuse::plan {
namespace {

struct Entry {
  const char* key;
  ModelConfig config;
};

// A dense grouped-query-attention model, sizes as its config.json at `source` names them.
ModelConfig dense(const char* name, const char* source, int layers, std::int64_t hidden, std::int64_t heads,
                  std::int64_t kv_heads, std::int64_t head_dim, std::int64_t inter) {
  ModelConfig m;
  m.name = name;
  m.source = source;
  m.layers = layers;
  m.hidden = hidden;
  m.heads = heads;
  m.kv_heads = kv_heads;
  m.head_dim = head_dim;
  m.intermediate = inter;
  m.dense_layers = layers;
  return m;
}

ModelConfig llama(const char* name, const char* source, int layers, std::int64_t hidden, std::int64_t heads,
                  std::int64_t inter) {
  return dense(name, source, layers, hidden, heads, 8, 128, inter);
}

// `m` with MoE layers after its first `dense_layers`: `experts` routed experts of width
// `expert_intermediate`, `per_token` of them per token, and `shared` shared experts.
ModelConfig with_experts(ModelConfig m, int dense_layers, std::int64_t experts, std::int64_t per_token,
                         std::int64_t expert_intermediate, std::int64_t shared, std::int64_t shared_intermediate) {
  m.dense_layers = dense_layers;
  m.experts = experts;
  m.experts_per_token = per_token;
  m.expert_intermediate = expert_intermediate;
  m.shared_experts = shared;
  m.shared_intermediate = shared_intermediate;
  return m;
}

const std::vector<Entry>& entries() {
  static const std::vector<Entry> list = [] {
    std::vector<Entry> e;
    e.push_back({"llama3-8b", llama("Llama-3 8B", "huggingface.co/meta-llama/Meta-Llama-3-8B/blob/main/config.json",
                                    32, 4096, 32, 14336)});
    e.push_back({"llama3-70b", llama("Llama-3 70B", "huggingface.co/meta-llama/Meta-Llama-3-70B/blob/main/config.json",
                                     80, 8192, 64, 28672)});
    e.push_back({"llama3-405b", llama("Llama-3 405B",
                                      "huggingface.co/meta-llama/Llama-3.1-405B/blob/main/config.json", 126, 16384,
                                      128, 53248)});
    e.push_back({"llama3.2-1b", dense("Llama-3.2 1B", "huggingface.co/meta-llama/Llama-3.2-1B/blob/main/config.json",
                                      16, 2048, 32, 8, 64, 8192)});
    e.push_back({"llama3.2-3b", dense("Llama-3.2 3B", "huggingface.co/meta-llama/Llama-3.2-3B/blob/main/config.json",
                                      28, 3072, 24, 8, 128, 8192)});
    e.push_back({"qwen2.5-7b", dense("Qwen2.5 7B", "huggingface.co/Qwen/Qwen2.5-7B/blob/main/config.json", 28, 3584,
                                     28, 4, 128, 18944)});
    e.push_back({"qwen2.5-72b", dense("Qwen2.5 72B", "huggingface.co/Qwen/Qwen2.5-72B/blob/main/config.json", 80,
                                      8192, 64, 8, 128, 29568)});
    e.push_back({"gemma2-9b", dense("Gemma-2 9B", "huggingface.co/google/gemma-2-9b/blob/main/config.json", 42, 3584,
                                    16, 8, 256, 14336)});
    e.push_back({"phi3-medium", dense("Phi-3 medium",
                                      "huggingface.co/microsoft/Phi-3-medium-4k-instruct/blob/main/config.json", 40,
                                      5120, 40, 10, 128, 17920)});
    e.push_back({"mixtral-8x7b", with_experts(llama("Mixtral-8x7B",
                                                    "huggingface.co/mistralai/Mixtral-8x7B-v0.1/blob/main/config.json",
                                                    32, 4096, 32, 0),
                                              0, 8, 2, 14336, 0, 0)});
    e.push_back({"qwen2-57b-a14b",
                 with_experts(dense("Qwen2-57B-A14B", "huggingface.co/Qwen/Qwen2-57B-A14B/blob/main/config.json", 28,
                                    3584, 28, 4, 128, 0),
                              0, 64, 8, 2560, 1, 20480)});
    ModelConfig ds;  // DeepSeek-V3: MLA, 3 dense layers, then 256 routed experts (top 8) + 1 shared
    ds.name = "DeepSeek-V3";
    ds.source = "huggingface.co/deepseek-ai/DeepSeek-V3/blob/main/config.json";
    ds.layers = 61;
    ds.hidden = 7168;
    ds.attention = "mla";
    ds.heads = 128;
    ds.q_lora_rank = 1536;
    ds.kv_lora_rank = 512;
    ds.qk_nope_dim = 128;
    ds.qk_rope_dim = 64;
    ds.v_head_dim = 128;
    ds.intermediate = 18432;
    e.push_back({"deepseek-v3", with_experts(ds, 3, 256, 8, 2048, 1, 2048)});
    return e;
  }();
  return list;
}

std::vector<LayerGemm> attention_gemms(const ModelConfig& m) {
  if (m.attention == "mla") {
    const std::int64_t qk = m.qk_nope_dim + m.qk_rope_dim;
    return {{"q_a (down)", m.q_lora_rank, m.hidden},
            {"q_b (up)", m.heads * qk, m.q_lora_rank},
            {"kv_a (down)", m.kv_lora_rank + m.qk_rope_dim, m.hidden},
            {"kv_b (up)", m.heads * (m.qk_nope_dim + m.v_head_dim), m.kv_lora_rank},
            {"o", m.hidden, m.heads * m.v_head_dim}};
  }
  return {{"qkv (fused)", (m.heads + 2 * m.kv_heads) * m.head_dim, m.hidden},
          {"o", m.hidden, m.heads * m.head_dim}};
}

}  // namespace

std::vector<LayerKind> layer_kinds(const ModelConfig& m) {
  std::vector<LayerKind> kinds;
  const bool moe = m.experts > 0;
  const int dense_count = moe ? m.dense_layers : m.layers;
  if (dense_count > 0 && m.intermediate > 0) {
    LayerKind dense{"dense", dense_count, attention_gemms(m)};
    dense.gemms.push_back({"gate+up (fused)", 2 * m.intermediate, m.hidden, 1.0, true});
    dense.gemms.push_back({"down", m.hidden, m.intermediate});
    kinds.push_back(dense);
  }
  if (moe && m.layers - dense_count > 0) {
    LayerKind kind{"moe", m.layers - dense_count, attention_gemms(m)};
    const double k = static_cast<double>(m.experts_per_token);
    kind.gemms.push_back({"router", m.experts, m.hidden});
    kind.gemms.push_back({"expert gate+up (fused)", 2 * m.expert_intermediate, m.hidden, k, true});
    kind.gemms.push_back({"expert down", m.hidden, m.expert_intermediate, k});
    if (m.shared_experts > 0) {
      const double s = static_cast<double>(m.shared_experts);
      kind.gemms.push_back({"shared gate+up (fused)", 2 * m.shared_intermediate, m.hidden, s, true});
      kind.gemms.push_back({"shared down", m.hidden, m.shared_intermediate, s});
    }
    kinds.push_back(kind);
  }
  return kinds;
}

double kv_bytes_per_token(const ModelConfig& m, Precision p) {
  const double per_layer = m.attention == "mla" ? static_cast<double>(m.kv_lora_rank + m.qk_rope_dim)
                                                : 2.0 * static_cast<double>(m.kv_heads * m.head_dim);
  return per_layer * m.layers * element_bytes(p);
}

const std::vector<ModelConfig>& model_catalogue() {
  static const std::vector<ModelConfig> models = [] {
    std::vector<ModelConfig> v;
    for (const Entry& e : entries()) v.push_back(e.config);
    return v;
  }();
  return models;
}

bool find_model(const std::string& key, ModelConfig* model) {
  for (const Entry& e : entries()) {
    if (key == e.key) {
      *model = e.config;
      return true;
    }
  }
  return false;
}

std::vector<std::string> model_keys() {
  std::vector<std::string> keys;
  for (const Entry& e : entries()) keys.push_back(e.key);
  return keys;
}

bool model_from_json(const std::string& json_text, ModelConfig* model, std::string* error) {
  const nlohmann::json j = nlohmann::json::parse(json_text, nullptr, /*allow_exceptions=*/false);
  if (j.is_discarded() || !j.is_object()) {
    *error = "not a JSON object";
    return false;
  }
  ModelConfig m;
  try {
    m.name = j.value("name", std::string("custom"));
    m.layers = j.at("layers").get<int>();
    m.hidden = j.at("hidden").get<std::int64_t>();
    m.attention = j.value("attention", std::string("gqa"));
    for (auto [field, key] : {std::pair{&m.heads, "heads"}, {&m.kv_heads, "kv_heads"}, {&m.head_dim, "head_dim"},
                              {&m.q_lora_rank, "q_lora_rank"}, {&m.kv_lora_rank, "kv_lora_rank"},
                              {&m.qk_nope_dim, "qk_nope_dim"}, {&m.qk_rope_dim, "qk_rope_dim"},
                              {&m.v_head_dim, "v_head_dim"}, {&m.intermediate, "intermediate"},
                              {&m.experts, "experts"}, {&m.experts_per_token, "experts_per_token"},
                              {&m.expert_intermediate, "expert_intermediate"}, {&m.shared_experts, "shared_experts"},
                              {&m.shared_intermediate, "shared_intermediate"}}) {
      *field = j.value(key, std::int64_t{0});
    }
    m.dense_layers = j.value("dense_layers", m.experts > 0 ? 0 : m.layers);
  } catch (const nlohmann::json::exception& e) {
    *error = std::string("missing or invalid field: ") + e.what();
    return false;
  }
  if (m.layers <= 0 || m.hidden <= 0) {
    *error = "layers and hidden must be positive";
    return false;
  }
  if (m.attention != "gqa" && m.attention != "mla") {
    *error = "attention must be \"gqa\" or \"mla\"";
    return false;
  }
  if (m.attention == "gqa" && (m.heads <= 0 || m.kv_heads <= 0 || m.head_dim <= 0)) {
    *error = "gqa attention needs heads, kv_heads and head_dim";
    return false;
  }
  if (m.dense_layers < 0 || m.dense_layers > m.layers) {
    *error = "dense_layers must be between 0 and layers";
    return false;
  }
  if (m.dense_layers > 0 && m.intermediate <= 0) {
    *error = "dense layers need an intermediate";
    return false;
  }
  if (m.intermediate <= 0 && m.experts <= 0) {
    *error = "a model needs an intermediate (dense MLP) or experts";
    return false;
  }
  if (m.experts > 0 && (m.experts_per_token <= 0 || m.expert_intermediate <= 0)) {
    *error = "experts need experts_per_token and expert_intermediate";
    return false;
  }
  *model = m;
  return true;
}

}  // namespace epifuse::plan

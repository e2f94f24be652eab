// The planner against seed 003's worked numbers (../shared/seeds/003_*: GEMM in LLM inference).
#include <cmath>

#include <gtest/gtest.h>

#include "planner/dispatched_kernel.hpp"
#include "planner/model_plan.hpp"
#include "planner/models.hpp"
#include "planner/roofline.hpp"

namespace epifuse::plan {
namespace {

Gpu h100() {
  Gpu g;
  EXPECT_TRUE(find_gpu("h100", &g));
  return g;
}

// Seed 003's table lists AI 1.0 / 7.9 / 30.8 / 107 / 185 / 296 / 419 at B = 1 … 1024, but states
// the formula AI = 2MNK / (2(MK + KN + MN)), which the planner follows and which gives the values
// below. The table is not consistent with that formula beyond B = 8, nor with its own FLOPs and
// bytes columns (120.3 GFLOP / 1.10 GB = 109, listed as 107); its text ("the ridge point is reached
// near B = 295", AI ≈ B while B ≪ N, K) agrees with the formula.
TEST(Planner, GateUpArithmeticIntensityFollowsTheSeedsFormula) {
  // Llama-70B gate+up: [B, 8192] x [8192, 57344], fp16.
  const std::pair<std::int64_t, double> expected[] = {{1, 1.0},       {8, 7.99},      {32, 31.86},  {128, 125.75},
                                                      {256, 247.17},  {512, 477.87},  {1024, 896.0}};
  for (const auto& [B, ai] : expected) {
    const GemmPlan p = plan_gemm({B, 57344, 8192}, Precision::kFP16, h100(), {});
    EXPECT_NEAR(p.ai, ai, 0.01) << "B = " << B;
    EXPECT_NEAR(p.flops, 2.0 * B * 57344 * 8192, 1.0);
  }
  // Where the seed's table is self-consistent it agrees: B = 1 (1.0) and B = 8 (7.9 from 947 MB).
  EXPECT_NEAR(plan_gemm({1, 57344, 8192}, Precision::kFP16, h100(), {}).ai, 1.0, 0.05);
  EXPECT_NEAR(plan_gemm({8, 57344, 8192}, Precision::kFP16, h100(), {}).ai, 7.9, 0.1);
  // The crossover the seed's text gives: memory-bound at B = 256, compute-bound at B = 512.
  EXPECT_FALSE(plan_gemm({256, 57344, 8192}, Precision::kFP16, h100(), {}).compute_bound);
  EXPECT_TRUE(plan_gemm({512, 57344, 8192}, Precision::kFP16, h100(), {}).compute_bound);
}

TEST(Planner, H100RidgePoints) {
  EXPECT_NEAR(h100().ridge(Precision::kFP16), 295, 0.5);
  EXPECT_NEAR(h100().ridge(Precision::kFP8), 591, 0.5);
  EXPECT_FALSE(plan_gemm({128, 57344, 8192}, Precision::kFP16, h100(), {}).compute_bound);
  EXPECT_TRUE(plan_gemm({512, 57344, 8192}, Precision::kFP16, h100(), {}).compute_bound);
}

TEST(Planner, MPaddingEfficiency) {
  const GemmPlan p = plan_gemm({13, 57344, 8192}, Precision::kFP16, h100(), {});
  EXPECT_NEAR(100 * p.m_padding_efficiency[1], 20.3, 0.05);  // 13 of 64 rows
  EXPECT_NEAR(100 * p.m_padding_efficiency[0], 81.25, 0.01);  // 13 of 16
  EXPECT_NEAR(100 * p.m_padding_efficiency[2], 10.16, 0.01);  // 13 of 128
}

TEST(Planner, WaveQuantization) {
  const GemmPlan p = plan_gemm({128, 57344, 8192}, Precision::kFP16, h100(), {128, 256});
  EXPECT_EQ(p.ctas, 224);
  EXPECT_NEAR(p.waves, 1.7, 0.01);
  EXPECT_NEAR(p.wave_efficiency, 224.0 / 264.0, 1e-9);
  EXPECT_EQ(plan_gemm({256, 57344, 8192}, Precision::kFP16, h100(), {128, 256}).ctas, 448);
}

TEST(Planner, Llama70BLayerFlops) {
  ModelConfig m;
  ASSERT_TRUE(find_model("llama3-70b", &m));
  const ModelPlan p = plan_model(m, Precision::kFP16, h100(), {}, {1}, {256, 512});
  ASSERT_EQ(p.kinds.size(), 1u);
  const LayerKindPlan& layer = p.kinds[0];
  EXPECT_NEAR(layer.flops_per_token / 1e6, 1711.3, 0.05);
  double ffn = 0;
  for (const GemmRow& row : layer.gemms) {
    if (row.gemm.name.find("gate+up") != std::string::npos || row.gemm.name == "down") ffn += row.pct_of_layer;
  }
  EXPECT_NEAR(ffn, 82.4, 0.05);
  // Chunked prefill, chunk 512: the [512, 57344] fp16 intermediate (58.7 MB) over 80 layers x 8 KV
  // heads x 128 x 2 (K and V) x 2 bytes = 327680 bytes per token.
  EXPECT_NEAR(p.kv_bytes_per_token, 327680, 0.5);
  ASSERT_EQ(p.chunks.size(), 2u);
  EXPECT_NEAR(p.chunks[1].saved_bytes, 512.0 * 57344 * 2, 0.5);
  EXPECT_NEAR(p.chunks[1].extra_kv_tokens, 512.0 * 57344 * 2 / 327680, 1e-9);
}

TEST(Planner, MoeModelsHaveExpertGemms) {
  ModelConfig ds;
  ASSERT_TRUE(find_model("deepseek-v3", &ds));
  const std::vector<LayerKind> kinds = layer_kinds(ds);
  ASSERT_EQ(kinds.size(), 2u);
  EXPECT_EQ(kinds[0].name, "dense");
  EXPECT_EQ(kinds[0].count, 3);
  EXPECT_EQ(kinds[1].count, 58);
  bool routed = false, shared = false;
  for (const LayerGemm& g : kinds[1].gemms) {
    if (g.name == "expert gate+up (fused)") routed = g.N == 4096 && g.K == 7168 && g.per_token == 8;
    if (g.name == "shared gate+up (fused)") shared = g.N == 4096 && g.per_token == 1;
  }
  EXPECT_TRUE(routed);
  EXPECT_TRUE(shared);
  // 1024 tokens x top-8 over 256 experts: 32 rows per expert GEMM.
  const ModelPlan p = plan_model(ds, Precision::kBF16, h100(), {}, {1024}, {});
  for (const GemmRow& row : p.kinds[1].gemms) {
    if (row.gemm.name == "expert down") EXPECT_EQ(row.at_tokens[0].shape.M, 32);
  }
}

TEST(Planner, CustomModelJson) {
  ModelConfig m;
  std::string error;
  ASSERT_TRUE(model_from_json(R"({"name": "tiny", "layers": 2, "hidden": 512, "heads": 8, "kv_heads": 2,
                                  "head_dim": 64, "intermediate": 1536})", &m, &error)) << error;
  EXPECT_EQ(layer_kinds(m)[0].gemms.size(), 4u);
  EXPECT_FALSE(model_from_json(R"({"layers": 2})", &m, &error));
  EXPECT_NE(error.find("hidden"), std::string::npos) << error;
  EXPECT_FALSE(model_from_json("not json", &m, &error));
  EXPECT_FALSE(model_from_json(R"({"layers": 2, "hidden": 512, "heads": 8, "kv_heads": 2, "head_dim": 64})", &m, &error));
  EXPECT_NE(error.find("intermediate"), std::string::npos) << error;
}

TEST(Planner, JsonHasTheSchemaKeys) {
  const GemmPlan p = plan_gemm({128, 57344, 8192}, Precision::kFP16, h100(), {});
  const nlohmann::json j = to_json(p, h100());
  for (const char* key : {"ai", "ridge", "regime", "flops", "bytes", "attainable_tflops", "floor_us",
                          "m_padding_efficiency", "ctas", "waves", "wave_efficiency"}) {
    EXPECT_TRUE(j.contains(key)) << key;
  }
  ModelConfig m;
  ASSERT_TRUE(find_model("mixtral-8x7b", &m));
  const nlohmann::json mj = to_json(plan_model(m, Precision::kBF16, h100(), {}, {1, 64}, {256}));
  for (const char* key : {"model", "ridge", "flops_per_token", "kv_bytes_per_token", "layer_kinds", "chunked_prefill"}) {
    EXPECT_TRUE(mj.contains(key)) << key;
  }
  EXPECT_TRUE(mj["layer_kinds"][0]["gemms"][0]["at_tokens"][0].contains("ai"));
}

// The planner names what dispatch runs on each datasheet GPU: the HBM3 rules on an H100 only,
// cuBLASLt for a plain GEMM without an epilogue, and no kernel on an A100 or in fp8.
TEST(Planner, NamesTheKernelDispatchRunsOnEachGpu) {
  Gpu h200;
  ASSERT_TRUE(find_gpu("h200", &h200));
  Gpu a100;
  ASSERT_TRUE(find_gpu("a100", &a100));
  const GemmShape gate_up{1500, 16384, 2048};  // Llama-3.2 1B's gate+up at 1500 tokens
  EXPECT_EQ(dispatched_kernel(gate_up, true, Precision::kBF16, h100()), "sm90_gated_mlp_bf16_bf16_coop_128x256x64_c1x2");
  EXPECT_EQ(dispatched_kernel(gate_up, true, Precision::kBF16, h200),
            "sm90_gated_mlp_bf16_bf16_swap_pingpong_128x128x64_c1x2");
  EXPECT_EQ(dispatched_kernel({1500, 4096, 4096}, false, Precision::kBF16, h200), "cublaslt (delegated)");
  EXPECT_EQ(dispatched_kernel({1, 25472, 62080}, true, Precision::kBF16, h200),
            "sm90_gated_mlp_bf16_bf16_swap_coop_128x32x128_c1x1_streamk stream_k=share_tail")
      << "with the launch knobs dispatch sets";
  EXPECT_EQ(dispatched_kernel(gate_up, true, Precision::kBF16, a100).rfind("none: ", 0), 0u);
  EXPECT_EQ(dispatched_kernel({1500, 4096, 4096}, false, Precision::kBF16, a100).rfind("none: ", 0), 0u)
      << "no delegation off Hopper";
  Gpu no_sms = h200;
  no_sms.sm_count = 0;
  EXPECT_EQ(dispatched_kernel(gate_up, true, Precision::kBF16, no_sms).rfind("none: ", 0), 0u);
  EXPECT_EQ(dispatched_kernel(gate_up, true, Precision::kFP8, h200).rfind("none: ", 0), 0u);
  EXPECT_EQ(dispatched_kernel({1500, 16388, 2048}, true, Precision::kBF16, h200).rfind("none: ", 0), 0u)
      << "a width of 8194";
  const GemmPlan p = plan_gemm(gate_up, Precision::kBF16, h200, {});
  EXPECT_FALSE(to_json(p, h200).contains("epifuse_kernel")) << "only where asked";
}

}  // namespace
}  // namespace epifuse::plan

// epifuse-plan: the roofline before running (seed 003's method), CPU only.
//   epifuse-plan --shape 128x57344x8192 --dtype fp16 --gpu h100
//   epifuse-plan --op gated --shape 1500x28672x4096 --gpu h100
//   epifuse-plan --model llama3-70b [--tokens 1,128,1024] [--json]
//   epifuse-plan --model-file my_model.json --ceilings bench/results/gated-nvidia-h200.json
#include <cstdio>
#include <fstream>
#include <regex>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>
#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "planner/dispatched_kernel.hpp"
#include "planner/measured_gpu.hpp"
#include "planner/model_plan.hpp"
#include "planner/models.hpp"
#include "planner/roofline.hpp"

namespace {

using namespace epifuse::plan;

int fail(const std::string& message) {
  std::fprintf(stderr, "epifuse-plan: %s\n", message.c_str());
  return 2;
}

bool parse_shape(const std::string& text, GemmShape* s) {
  static const std::regex pattern(R"((\d+)x(\d+)x(\d+))");
  std::smatch m;
  if (!std::regex_match(text, m, pattern)) return false;
  try {
    *s = {std::stoll(m[1]), std::stoll(m[2]), std::stoll(m[3])};
  } catch (const std::out_of_range&) {
    return false;
  }
  return s->M > 0 && s->N > 0 && s->K > 0;
}

bool parse_tile(const std::string& text, Tile* t) {
  static const std::regex pattern(R"((\d+)x(\d+))");
  std::smatch m;
  if (!std::regex_match(text, m, pattern)) return false;
  try {
    *t = {std::stoi(m[1]), std::stoi(m[2])};
  } catch (const std::out_of_range&) {
    return false;
  }
  return t->m > 0 && t->n > 0;
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"epifuse-plan: FLOPs, bytes, arithmetic intensity and the roofline of GEMMs and models (no GPU needed)"};
  std::vector<std::string> shapes;
  std::string dtype = "bf16", gpu_key = "h200", model_key, model_file, ceilings, tile_text = "128x256", op = "gemm";
  std::vector<std::int64_t> tokens = {1, 8, 32, 128, 256, 512, 1024, 4096};
  std::vector<std::int64_t> chunks = {256, 512};
  double peak_tflops = 0, bandwidth_gbps = 0;
  int sms = 0;
  bool json = false;
  app.add_option("--shape", shapes, "MxNxK of one GEMM, repeatable");
  app.add_option("--op", op, "what --shape runs: gemm, or gated (the packed gate+up GEMM: N = 2 x the MLP's width)");
  app.add_option("--model", model_key, "a catalogue model: " + [] {
    std::string s;
    for (const std::string& k : model_keys()) s += (s.empty() ? "" : ", ") + k;
    return s;
  }());
  app.add_option("--model-file", model_file, "a custom model as JSON (fields as in planner/models.hpp)");
  app.add_option("--dtype", dtype, "fp16, bf16 or fp8");
  app.add_option("--gpu", gpu_key, "h100, h200 or a100 (datasheet peaks)");
  app.add_option("--peak-tflops", peak_tflops, "override the peak for --dtype (TFLOP/s)");
  app.add_option("--bandwidth-gbps", bandwidth_gbps, "override the memory bandwidth (GB/s)");
  app.add_option("--sms", sms, "override the SM count");
  app.add_option("--ceilings", ceilings, "use the ceilings an epifuse-bench results JSON measured");
  app.add_option("--tile", tile_text, "CTA tile MxN for the grid and wave estimate");
  app.add_option("--tokens", tokens, "token counts (M) for --model")->delimiter(',');
  app.add_option("--chunk", chunks, "chunked-prefill sizes for the KV-cache estimate")->delimiter(',');
  app.add_flag("--json", json, "machine-readable JSON instead of tables");
  CLI11_PARSE(app, argc, argv);

  Precision precision;
  if (!parse_precision(dtype, &precision)) return fail("--dtype must be fp16, bf16 or fp8, got '" + dtype + "'");
  Gpu gpu;
  for (std::int64_t c : chunks) {
    if (c <= 0) return fail("--chunk must be positive");
  }
  if (!ceilings.empty()) {
    std::string error;
    if (!gpu_from_bench_json(ceilings, &gpu, &error)) return fail(error);
    if (precision == Precision::kFP8) return fail("--ceilings holds a measured bf16 peak only; use --dtype bf16 or fp16");
  } else if (!find_gpu(gpu_key, &gpu)) {
    return fail("--gpu must be h100, h200 or a100, got '" + gpu_key + "'");
  }
  if (peak_tflops > 0 || bandwidth_gbps > 0 || sms > 0) gpu.source = "user";
  if (peak_tflops > 0) (precision == Precision::kFP8 ? gpu.fp8_tflops : gpu.fp16_tflops) = peak_tflops;
  if (bandwidth_gbps > 0) gpu.bandwidth_gbps = bandwidth_gbps;
  if (sms > 0) gpu.sm_count = sms;
  if (gpu.peak_tflops(precision) <= 0) return fail(gpu.name + " has no " + dtype + " peak; give --peak-tflops");
  Tile tile;
  if (!parse_tile(tile_text, &tile)) return fail("--tile must be MxN, got '" + tile_text + "'");

  const int modes = !shapes.empty() + !model_key.empty() + !model_file.empty();
  if (modes != 1) return fail("give exactly one of --shape, --model, --model-file");
  if (op != "gemm" && op != "gated") return fail("--op must be gemm or gated, got '" + op + "'");
  if (op != "gemm" && shapes.empty()) return fail("--op applies to --shape; a model plan names each GEMM's op");

  if (!shapes.empty()) {
    std::vector<GemmPlan> plans;
    for (const std::string& text : shapes) {
      GemmShape s;
      if (!parse_shape(text, &s)) return fail("--shape must be MxNxK with positive sizes, got '" + text + "'");
      plans.push_back(plan_gemm(s, precision, gpu, tile));
      plans.back().epifuse_kernel = dispatched_kernel(s, op == "gated", precision, gpu);
    }
    if (json) {
      nlohmann::json out = nlohmann::json::array();
      for (const GemmPlan& p : plans) out.push_back(to_json(p, gpu));
      fmt::print("{}\n", out.dump(2));
    } else {
      print_gemm_plans(plans, gpu);
    }
    return 0;
  }

  ModelConfig model;
  if (!model_key.empty()) {
    if (!find_model(model_key, &model)) return fail("unknown --model '" + model_key + "'; see --help for the catalogue");
  } else {
    std::ifstream in(model_file);
    if (!in) return fail("cannot read " + model_file);
    std::stringstream text;
    text << in.rdbuf();
    std::string error;
    if (!model_from_json(text.str(), &model, &error)) return fail(model_file + ": " + error);
  }
  for (std::int64_t t : tokens) {
    if (t <= 0) return fail("--tokens must be positive");
  }
  ModelPlan plan = plan_model(model, precision, gpu, tile, tokens, chunks);
  for (LayerKindPlan& kind : plan.kinds) {
    for (GemmRow& row : kind.gemms) {
      if (row.routed) continue;  // grouped: each expert's rows are known on the device only
      for (GemmPlan& g : row.at_tokens) g.epifuse_kernel = dispatched_kernel(g.shape, row.gemm.gated, precision, gpu);
    }
  }
  if (json) {
    fmt::print("{}\n", to_json(plan).dump(2));
  } else {
    print_model_plan(plan);
  }
  return 0;
}

#include "planner/measured_gpu.hpp"

#include <fstream>

#include <nlohmann/json.hpp>

namespace epifuse::plan {

bool gpu_from_bench_json(const std::string& path, Gpu* gpu, std::string* error) {
  std::ifstream in(path);
  if (!in) {
    *error = "cannot read " + path;
    return false;
  }
  const nlohmann::json j = nlohmann::json::parse(in, nullptr, /*allow_exceptions=*/false);
  if (j.is_discarded() || !j.contains("ceilings") || !j.contains("gpu")) {
    *error = path + " is not an epifuse-bench results JSON (no \"gpu\" and \"ceilings\")";
    return false;
  }
  const nlohmann::json& c = j["ceilings"];
  if (!c.contains("peak_tflops") || !c.contains("copy_gbps")) {
    *error = path + ": ceilings lack peak_tflops or copy_gbps";
    return false;
  }
  Gpu g;
  try {
    g.name = j["gpu"].get<std::string>() + " (measured)";
    g.fp16_tflops = c["peak_tflops"].get<double>();  // cuBLASLt bf16: the fp16 class of tensor cores
    g.fp8_tflops = 0.0;                                // not measured
    g.bandwidth_gbps = c["copy_gbps"].get<double>();
    g.sm_count = j.contains("device") ? j["device"].value("sm_count", 0) : 0;
  } catch (const nlohmann::json::exception& e) {
    *error = path + ": " + e.what();
    return false;
  }
  g.source = path;
  *gpu = g;
  return true;
}

}  // namespace epifuse::plan

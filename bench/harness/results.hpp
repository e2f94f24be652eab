// Result rows, the JSON other tools read (schema in README "Benchmark results"), and the table.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "bench/harness/ceilings.hpp"
#include "bench/harness/device_facts.hpp"
#include "bench/harness/timing.hpp"

namespace epifuse::bench {

struct Row {
  std::string op = "gemm";
  std::string impl;                // "epifuse", "cublaslt", "cublaslt+act", "epifuse-static", "epifuse:<kernel>"
  std::int64_t M = 0, N = 0, K = 0;
  std::string dtype = "bf16";      // input dtype; output in `extra.output_dtype` when it differs
  std::string epilogue = "none";   // "bias_gelu", "alpha+residual_after", ...
  Timing timing;
  double flops = 0, bytes = 0;     // useful work and minimum traffic
  std::string check = "skipped";   // "pass" / "fail" / "skipped"
  std::string kernel;              // epifuse kernel or cuBLASLt algorithm
  nlohmann::json extra = nlohmann::json::object();  // ratios and anything else worth keeping
};

struct Report {
  DeviceFacts device;
  Ceilings ceilings;
  std::string commit, date, command;
  int sm_clock_mhz_at_end = 0;  // beside device.sm_clock_mhz (at start): throttling shows
  std::vector<Row> rows;
};

nlohmann::json to_json(const Report& report);
void write_json(const Report& report, const std::string& path);
// One line per row, the JSON's fields as columns (extra fields included).
void write_csv(const Report& report, const std::string& path);
void print_table(const Report& report);

}  // namespace epifuse::bench

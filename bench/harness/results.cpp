#include "bench/harness/results.hpp"

#include <algorithm>
#include <cstdio>
#include <tuple>
#include <fstream>
#include <stdexcept>

#include <fmt/format.h>

namespace epifuse::bench {
namespace {

double tflops(const Row& r) { return r.flops / (r.timing.median_us * 1e6); }
double gbps(const Row& r) { return r.bytes / (r.timing.median_us * 1e3); }
double pct_roofline(const Report& rep, const Row& r) {
  return 100.0 * roofline_floor_us(rep.ceilings, r.flops, r.bytes) / r.timing.median_us;
}

// The three fastest kernel configurations of each swept shape.
void print_sweep_summary(const Report& report) {
  std::vector<const Row*> sweep;
  for (const Row& r : report.rows) {
    if (r.impl == "sweep") sweep.push_back(&r);
  }
  if (sweep.empty()) return;
  std::stable_sort(sweep.begin(), sweep.end(), [](const Row* a, const Row* b) {
    return std::tie(a->M, a->N, a->K, a->timing.median_us) < std::tie(b->M, b->N, b->K, b->timing.median_us);
  });
  fmt::print("\nsweep (fastest three per shape):\n");
  const Row* shape = nullptr;
  int shown = 0;
  for (const Row* r : sweep) {
    if (!shape || r->M != shape->M || r->N != shape->N || r->K != shape->K) {
      shape = r;
      shown = 0;
    }
    if (shown++ < 3) {
      // A gated row's baseline is cuBLASLt + act·mul, a GEMM row's cuBLASLt.
      const char* ratio = r->extra.contains("vs_cublaslt+act") ? "vs_cublaslt+act" : "vs_cublaslt";
      fmt::print("  {:>5} {:>6} {:>6}  {:<52} {:<8} swizzle {}  {:>9.1f} us  {} {:.3f}\n", r->M, r->N, r->K,
                 r->kernel, r->extra.value("raster", ""), r->extra.value("swizzle", 0), r->timing.median_us, ratio,
                 r->extra.value(ratio, 0.0));
    }
  }
}

}  // namespace

nlohmann::json to_json(const Report& report) {
  const DeviceFacts& d = report.device;
  nlohmann::json j;
  j["gpu"] = d.gpu;
  j["driver"] = d.driver;
  j["cuda"] = d.cuda;
  j["commit"] = report.commit;
  j["date"] = report.date;
  j["command"] = report.command;
  j["device"] = {{"sm_count", d.sm_count},
                 {"l2_bytes", d.l2_bytes},
                 {"memory_bytes", d.memory_bytes},
                 {"sm_clock_mhz_at_start", d.sm_clock_mhz},
                 {"sm_clock_mhz_at_end", report.sm_clock_mhz_at_end},
                 {"sm_clock_max_mhz", d.sm_clock_max_mhz},
                 {"mem_clock_mhz", d.mem_clock_mhz},
                 {"compute_capability", std::to_string(d.cc_major) + "." + std::to_string(d.cc_minor)}};
  j["ceilings"] = {{"copy_gbps", report.ceilings.copy_gbps},
                   {"read_gbps", report.ceilings.read_gbps},
                   {"peak_tflops", report.ceilings.bf16_tflops},
                   {"peak_source", "cuBLASLt bf16, fp32 accumulate, best of 8192^3 and 16384^3"}};
  nlohmann::json rows = nlohmann::json::array();
  for (const Row& r : report.rows) {
    nlohmann::json row = {{"op", r.op},
                          {"impl", r.impl},
                          {"M", r.M},
                          {"N", r.N},
                          {"K", r.K},
                          {"dtype", r.dtype},
                          {"epilogue", r.epilogue},
                          {"median_us", r.timing.median_us},
                          {"p10_us", r.timing.p10_us},
                          {"p90_us", r.timing.p90_us},
                          {"samples", r.timing.samples},
                          {"tflops", tflops(r)},
                          {"gbps", gbps(r)},
                          {"pct_roofline", pct_roofline(report, r)},
                          {"check", r.check},
                          {"kernel", r.kernel}};
    row.update(r.extra);
    rows.push_back(row);
  }
  j["rows"] = rows;
  return j;
}

void write_json(const Report& report, const std::string& path) {
  std::ofstream out(path);
  if (!out) throw std::runtime_error("cannot write " + path);
  out << to_json(report).dump(2) << "\n";
}

void write_csv(const Report& report, const std::string& path) {
  std::ofstream out(path);
  if (!out) throw std::runtime_error("cannot write " + path);
  // The JSON's row fields, then every extra field any row has (ratios, memory), empty where absent.
  const nlohmann::json rows = to_json(report)["rows"];
  std::vector<std::string> columns = {"op", "impl", "M", "N", "K", "dtype", "epilogue", "median_us", "p10_us", "p90_us",
                                      "samples", "tflops", "gbps", "pct_roofline", "check", "kernel"};
  for (const nlohmann::json& row : rows) {
    for (const auto& [key, value] : row.items()) {
      if (std::find(columns.begin(), columns.end(), key) == columns.end()) columns.push_back(key);
    }
  }
  auto cell = [](const nlohmann::json& v) {
    if (v.is_string()) {
      std::string s = v.get<std::string>();
      if (s.find_first_of(",\"\n") == std::string::npos) return s;
      std::string quoted = "\"";
      for (char ch : s) quoted += ch == '"' ? std::string("\"\"") : std::string(1, ch);  // RFC 4180
      return quoted + "\"";
    }
    return v.dump();
  };
  for (std::size_t c = 0; c < columns.size(); ++c) out << (c ? "," : "") << columns[c];
  out << "\n";
  for (const nlohmann::json& row : rows) {
    for (std::size_t c = 0; c < columns.size(); ++c) {
      out << (c ? "," : "") << (row.contains(columns[c]) ? cell(row[columns[c]]) : "");
    }
    out << "\n";
  }
}

void print_table(const Report& report) {
  fmt::print("\n{} | driver {} | {} | commit {} | {}\n", report.device.gpu, report.device.driver, report.device.cuda,
             report.commit, report.date);
  fmt::print("ceilings: copy {:.0f} GB/s, read {:.0f} GB/s, bf16 GEMM {:.0f} TFLOP/s\n", report.ceilings.copy_gbps,
             report.ceilings.read_gbps, report.ceilings.bf16_tflops);
  fmt::print("{:<6} {:>6} {:>6} {:>6} {:<26} {:<16} {:>10} {:>8} {:>7} {:>7} {:<5} {}\n", "op", "M", "N", "K",
             "epilogue", "impl", "median_us", "TFLOP/s", "GB/s", "%roof", "check", "ratios");
  for (const Row& r : report.rows) {
    if (r.impl == "sweep") continue;
    std::string ratios;
    for (const auto& [key, value] : r.extra.items()) {
      if (value.is_number_float()) ratios += fmt::format("{}={:.3f} ", key, value.get<double>());
    }
    fmt::print("{:<6} {:>6} {:>6} {:>6} {:<26} {:<16} {:>10.1f} {:>8.1f} {:>7.0f} {:>6.1f}% {:<5} {}\n", r.op, r.M, r.N,
               r.K, r.epilogue.substr(0, 26), r.impl.substr(0, 16), r.timing.median_us, tflops(r), gbps(r),
               pct_roofline(report, r), r.check, ratios);
  }
  print_sweep_summary(report);
}

}  // namespace epifuse::bench

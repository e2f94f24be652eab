// epifuse-bench: correctness first, then time, against cuBLASLt in the same run.
//   epifuse-bench                 the default suite (gemm); without a GPU, its plan
//   epifuse-bench gemm --shape 4096x28672x8192 --json out.json
//   epifuse-bench gated [--shape MxNxK]   the fused gated MLP (N: output width) on Llama-3 shapes
//   epifuse-bench gated-accuracy          the gated accuracy table (M = N = K)
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <regex>
#include <string>

#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include "bench/ceilings.hpp"
#include "bench/device_facts.hpp"
#include "bench/gated_suite.hpp"
#include "bench/gemm_suite.hpp"
#include "bench/plan.hpp"
#include "bench/results.hpp"
#include "tests/support/random.hpp"

namespace {

using namespace epifuse::bench;

Shape parse_shape(const std::string& text) {
  static const std::regex pattern(R"((\d+)x(\d+)x(\d+))");
  std::smatch m;
  if (!std::regex_match(text, m, pattern)) throw CLI::ValidationError("--shape", "expected MxNxK, got '" + text + "'");
  return {std::stoll(m[1]), std::stoll(m[2]), std::stoll(m[3])};
}

std::string slug(std::string s) {
  for (char& c : s) c = std::isalnum(static_cast<unsigned char>(c)) ? static_cast<char>(std::tolower(c)) : '-';
  return s;
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"epifuse-bench: epifuse kernels against cuBLASLt; correctness first, then time"};
  app.require_subcommand(0, 1);
  std::vector<std::string> shape_args;
  std::string json_path;
  bool check = true, sweep = false, quick = false;
  CLI::App* gemm_cmd = app.add_subcommand("gemm", "GEMM with epifuse epilogues (the default suite)");
  for (CLI::App* cmd : {&app, gemm_cmd}) {
    cmd->add_option("--shape", shape_args, "MxNxK, repeatable (default: the suite's shapes)");
    cmd->add_option("--json", json_path, "where to write the JSON (default bench/results/gemm-<gpu>.json)");
    cmd->add_flag("--check,!--no-check", check, "check against the fp64 reference before timing (default)");
    cmd->add_flag("--sweep", sweep, "also time every compiled bf16 kernel under several launch knobs (tuning)");
    cmd->add_flag("--quick", quick, "fewer timed iterations");
  }
  CLI::App* gated_cmd = app.add_subcommand("gated", "the fused gated MLP (SwiGLU) against cuBLASLt and unfused paths");
  gated_cmd->add_option("--shape", shape_args, "MxNxK with N the output width, repeatable (default: Llama-3 8B/70B/405B)");
  gated_cmd->add_option("--json", json_path, "where to write the JSON (default bench/results/gated-<gpu>.json)");
  gated_cmd->add_flag("--check,!--no-check", check, "check against the fp64 reference before timing (default)");
  gated_cmd->add_flag("--sweep", sweep, "also time every compiled bf16 gated kernel (tuning)");
  gated_cmd->add_flag("--quick", quick, "fewer timed iterations");
  std::vector<std::int64_t> accuracy_sizes = {1024, 2048, 4096, 8192};
  int accuracy_inits = 100;
  CLI::App* accuracy_cmd = app.add_subcommand("gated-accuracy", "gated accuracy table: fused and unfused bf16 vs fp64");
  accuracy_cmd->add_option("--size", accuracy_sizes, "M = N = K, repeatable")->check(CLI::Range(8, 65536));
  accuracy_cmd->add_option("--inits", accuracy_inits, "random draws per size")->check(CLI::Range(1, 10000));
  accuracy_cmd->add_option("--json", json_path, "where to write the JSON (default bench/results/gated-accuracy-<gpu>.json)");
  CLI11_PARSE(app, argc, argv);
  const bool gated = gated_cmd->parsed();

  GemmSuiteOptions options;
  try {
    for (const std::string& s : shape_args) options.shapes.push_back(parse_shape(s));
  } catch (const CLI::Error& e) {
    return app.exit(e);
  }
  if (options.shapes.empty()) options.shapes = gated ? default_gated_shapes() : default_gemm_shapes();
  options.check = check;
  options.sweep = sweep;
  if (quick) options.timing = {100.0, 5, 2, 20};

  bool usable = false;
  std::string why;
  Report report;
  report.device = query_device(&usable, &why);
  if (!usable) {
    fmt::print("epifuse-bench: {}; nothing was measured.\n\n", why);
    if (gated) {
      print_gated_plan(options.shapes);
    } else {
      print_gemm_plan(options.shapes);
    }
    return 0;
  }

  try {
    report.commit = git_commit();
    report.date = utc_now_iso();
    report.command = [&] {
      std::string c;
      for (int i = 0; i < argc; ++i) c += (i ? " " : "") + std::string(argv[i]);
      return c;
    }();
    epifuse::testing::run_seed();
    std::fprintf(stderr, "[bench] measuring ceilings\n");
    report.ceilings = measure_ceilings();
    std::string suite = "gemm";
    if (accuracy_cmd->parsed()) {
      nlohmann::json table;
      run_gated_accuracy(accuracy_sizes, accuracy_inits, &table);
      nlohmann::json doc = to_json(report);
      doc.erase("rows");
      doc["accuracy"] = table;
      if (json_path.empty()) json_path = "bench/results/gated-accuracy-" + slug(report.device.gpu) + ".json";
      if (auto dir = std::filesystem::path(json_path).parent_path(); !dir.empty()) std::filesystem::create_directories(dir);
      std::ofstream(json_path) << doc.dump(2) << "\n";
      fmt::print("wrote {}\n", json_path);
      return 0;
    }
    if (gated) {
      GatedSuiteOptions gated_options;
      gated_options.shapes = options.shapes;
      gated_options.check = options.check;
      gated_options.sweep = options.sweep;
      if (quick) gated_options.timing = {100.0, 4, 1, 20};
      run_gated_suite(gated_options, report.device, report.ceilings, &report.rows);
      suite = "gated";
    } else {
      run_gemm_suite(options, report.device, report.ceilings, &report.rows);
    }
    report.sm_clock_mhz_at_end = current_sm_clock_mhz();
    print_table(report);
    if (json_path.empty()) json_path = "bench/results/" + suite + "-" + slug(report.device.gpu) + ".json";
    if (auto dir = std::filesystem::path(json_path).parent_path(); !dir.empty()) std::filesystem::create_directories(dir);
    write_json(report, json_path);
    fmt::print("\nwrote {}\n", json_path);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "epifuse-bench: %s\n", e.what());
    return 1;
  }
  return 0;
}

// epifuse-bench: correctness first, then time, against cuBLASLt in the same run.
//   epifuse-bench                          the default suite (gemm, Llama-3 shapes); without a GPU, its plan
//   epifuse-bench gemm --shape 4096x28672x8192 --json out.json --csv out.csv
//   epifuse-bench gated [--suite llama | --model NAME [--tokens 1,64,1024] | --shape MxNxK] [--graphs]
//   epifuse-bench gated-accuracy           the gated accuracy table (M = N = K)
// Plots: tools/plot_results.py reads the JSON.
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <regex>
#include <stdexcept>
#include <string>

#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include "bench/ceilings.hpp"
#include "bench/device_facts.hpp"
#include "bench/gated_suite.hpp"
#include "bench/gemm_suite.hpp"
#include "bench/plan.hpp"
#include "bench/results.hpp"
#include "bench/suites.hpp"
#include "tests/support/random.hpp"

namespace {

using namespace epifuse::bench;

Shape parse_shape(const std::string& text) {
  static const std::regex pattern(R"((\d+)x(\d+)x(\d+))");
  std::smatch m;
  if (!std::regex_match(text, m, pattern)) throw CLI::ValidationError("--shape", "expected MxNxK, got '" + text + "'");
  Shape s;
  try {
    s = {std::stoll(m[1]), std::stoll(m[2]), std::stoll(m[3])};
  } catch (const std::out_of_range&) {
    throw CLI::ValidationError("--shape", "size out of range: '" + text + "'");
  }
  if (s.M <= 0 || s.N <= 0 || s.K <= 0) throw CLI::ValidationError("--shape", "sizes must be positive: '" + text + "'");
  return s;
}

std::string slug(std::string s) {
  for (char& c : s) c = std::isalnum(static_cast<unsigned char>(c)) ? static_cast<char>(std::tolower(c)) : '-';
  return s;
}

// What every measuring subcommand takes.
struct CommonOptions {
  std::vector<std::string> shapes;
  std::string suite = "llama", model, json_path, csv_path;
  std::vector<std::int64_t> tokens;
  bool check = true, sweep = false, quick = false, graphs = false;

  void add_to(CLI::App* cmd, const std::string& op) {
    cmd->add_option("--shape", shapes, op == "gated" ? "MxNxK with N the output width, repeatable" : "MxNxK, repeatable");
    cmd->add_option("--suite", suite, "named suite: llama (Llama-3 shapes, the default)")
        ->check(CLI::IsMember({"llama"}));
    cmd->add_option("--model", model, "a planner catalogue model (llama3-8b, llama3-70b, llama3-405b, mixtral-8x7b, "
                                      "deepseek-v3): its " + std::string(op == "gated" ? "gated MLPs" : "other GEMMs"));
    cmd->add_option("--tokens", tokens, "token counts (M) for --model")->delimiter(',')->check(CLI::PositiveNumber);
    cmd->add_option("--json", json_path, "where to write the JSON (default bench/results/" + op + "-<gpu>.json)");
    cmd->add_option("--csv", csv_path, "also write the rows as CSV");
    cmd->add_flag("--check,!--no-check", check, "check against the fp64 reference before timing (default)");
    cmd->add_flag("--sweep", sweep, "also time every compiled bf16 kernel under several launch knobs (tuning)");
    cmd->add_flag("--quick", quick, "fewer timed iterations");
    cmd->add_flag("--graphs", graphs, "time CUDA-graph launches (no host launch overhead; for small M)");
  }

  std::vector<Shape> resolve_shapes(const std::string& op) const {
    if (!shapes.empty() && !model.empty()) throw CLI::ValidationError("--shape", "give --shape or --model, not both");
    std::vector<Shape> out;
    for (const std::string& s : shapes) out.push_back(parse_shape(s));
    if (!model.empty()) {
      std::vector<std::int64_t> t = tokens;
      if (t.empty()) t = op == "gated" ? std::vector<std::int64_t>{1, 16, 64, 128, 256, 512, 1024, 2048, 4096, 8192, 16384}
                                       : std::vector<std::int64_t>{1, 128, 1024, 4096};
      try {
        out = model_shapes(model, op, t);
      } catch (const std::invalid_argument& e) {
        throw CLI::ValidationError("--model", e.what());
      }
    }
    if (out.empty()) out = op == "gated" ? default_gated_shapes() : default_gemm_shapes();
    return out;
  }
};

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"epifuse-bench: epifuse kernels against cuBLASLt; correctness first, then time"};
  app.require_subcommand(0, 1);
  CommonOptions common;
  CLI::App* gemm_cmd = app.add_subcommand("gemm", "GEMM with epifuse epilogues (the default)");
  CLI::App* gated_cmd = app.add_subcommand("gated", "the fused gated MLP (SwiGLU) against cuBLASLt and unfused paths");
  common.add_to(&app, "gemm");
  common.add_to(gemm_cmd, "gemm");
  common.add_to(gated_cmd, "gated");
  std::vector<std::int64_t> accuracy_sizes = {1024, 2048, 4096, 8192};
  int accuracy_inits = 100;
  std::string accuracy_json;
  CLI::App* accuracy_cmd = app.add_subcommand("gated-accuracy", "gated accuracy table: fused and unfused bf16 vs fp64");
  accuracy_cmd->add_option("--size", accuracy_sizes, "M = N = K, repeatable")->check(CLI::Range(8, 65536));
  accuracy_cmd->add_option("--inits", accuracy_inits, "random draws per size")->check(CLI::Range(1, 10000));
  accuracy_cmd->add_option("--json", accuracy_json, "where to write the JSON (default bench/results/gated-accuracy-<gpu>.json)");
  CLI11_PARSE(app, argc, argv);
  for (std::int64_t size : accuracy_sizes) {
    if (size % 8 != 0) return app.exit(CLI::ValidationError("--size", "M = N = K must be a multiple of 8, got " + std::to_string(size)));
  }
  const std::string op = gated_cmd->parsed() ? "gated" : "gemm";

  std::vector<Shape> shapes;
  try {
    shapes = common.resolve_shapes(op);
  } catch (const CLI::Error& e) {
    return app.exit(e);
  }
  TimingOptions timing;
  if (common.quick) timing = op == "gated" ? TimingOptions{100.0, 4, 1, 20} : TimingOptions{100.0, 5, 2, 20};
  if (op == "gated" && !common.quick) timing = GatedSuiteOptions{}.timing;
  timing.graphs = common.graphs;

  bool usable = false;
  std::string why;
  Report report;
  report.device = query_device(&usable, &why);
  if (!usable) {
    fmt::print("epifuse-bench: {}; nothing was measured.\n\n", why);
    if (accuracy_cmd->parsed()) {
      fmt::print("epifuse-bench gated-accuracy would compare the fused SwiGLU kernel and the unfused bf16 path\n"
                 "against fp64 at M = N = K in {{{}}}, {} random draws each.\n", fmt::join(accuracy_sizes, ", "),
                 accuracy_inits);
    } else if (op == "gated") {
      print_gated_plan(shapes);
    } else {
      print_gemm_plan(shapes);
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
    auto write = [&](const std::string& kind, std::string path, const nlohmann::json* doc) {
      if (path.empty()) path = "bench/results/" + kind + "-" + slug(report.device.gpu) + ".json";
      if (auto dir = std::filesystem::path(path).parent_path(); !dir.empty()) std::filesystem::create_directories(dir);
      if (doc) {
        std::ofstream(path) << doc->dump(2) << "\n";
      } else {
        write_json(report, path);
      }
      fmt::print("\nwrote {}\n", path);
    };
    if (accuracy_cmd->parsed()) {
      nlohmann::json table;
      run_gated_accuracy(accuracy_sizes, accuracy_inits, &table);
      nlohmann::json doc = to_json(report);
      doc.erase("rows");
      doc["accuracy"] = table;
      write("gated-accuracy", accuracy_json, &doc);
      return 0;
    }
    if (op == "gated") {
      GatedSuiteOptions options{shapes, common.check, common.sweep, timing};
      run_gated_suite(options, report.device, report.ceilings, &report.rows);
    } else {
      GemmSuiteOptions options{shapes, common.check, common.sweep, timing};
      run_gemm_suite(options, report.device, report.ceilings, &report.rows);
    }
    report.sm_clock_mhz_at_end = current_sm_clock_mhz();
    print_table(report);
    write(op, common.json_path, nullptr);
    if (!common.csv_path.empty()) {
      write_csv(report, common.csv_path);
      fmt::print("wrote {}\n", common.csv_path);
    }
  } catch (const std::exception& e) {
    std::fprintf(stderr, "epifuse-bench: %s\n", e.what());
    return 1;
  }
  return 0;
}

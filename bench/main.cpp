// epifuse-bench: correctness first, then time, against cuBLASLt in the same run. One subcommand
// per suite (suites/table.cpp), plus the gated accuracy study.
//   epifuse-bench                          the default suite (gemm); without a GPU, its plan
//   epifuse-bench gemm --shape 4096x28672x8192 --json out.json --csv out.csv
//   epifuse-bench gated [--model NAME [--tokens 1,64,1024] | --shape MxNxK] [--graphs]
//   epifuse-bench gemm --grid [--models llama3-8b,qwen2.5-7b] [--grid-every 4] --epilogues none,bias_gelu
//   epifuse-bench gated --random 200 --seed 7
//   epifuse-bench moe [--model mixtral-8x7b --tokens 1,1024]   grouped gate/up vs cuBLAS(Lt) per routing
//   epifuse-bench gated-accuracy           the gated accuracy table (M = N = K)
// Every shape is validated before anything is measured (a shape no kernel can run exits 2); the
// JSON is rewritten after every shape, so a failure later loses nothing; the exit code is 1 when
// any check failed or any shape could not be measured.
#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <stdexcept>
#include <string>

#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include "bench/accuracy/gated_accuracy.hpp"
#include "bench/harness/ceilings.hpp"
#include "bench/harness/device_facts.hpp"
#include "bench/harness/results.hpp"
#include "bench/host/host_cost.hpp"
#include "bench/suites/suite.hpp"
#include "planner/models.hpp"
#include "testing/random.hpp"

namespace {

using namespace epifuse::bench;

std::string slug(std::string s) {
  for (char& c : s) c = std::isalnum(static_cast<unsigned char>(c)) ? static_cast<char>(std::tolower(c)) : '-';
  return s;
}

// What every suite's subcommand takes.
struct CommonOptions {
  std::vector<std::string> shapes, grid_models, epilogues, sweep_only;
  std::string model, json_path, csv_path;
  std::vector<std::int64_t> tokens;
  bool check = true, sweep = false, sweep_knobs = false, quick = false, graphs = false, grid = false;
  int grid_every = 1, grid_offset = 0, random = 0;
  std::int64_t graphs_up_to = 256, m_min = 1, m_max = 16384;
  std::uint64_t seed = 1;

  void add_to(CLI::App* cmd, const Suite& suite) {
    cmd->add_option("--shape", shapes, suite.shape_help);
    cmd->add_option("--model", model, "a planner catalogue model (" + fmt::format("{}", fmt::join(epifuse::plan::model_keys(), ", ")) +
                                      "): its " + std::string(suite.gated_model_gemms ? "gated MLPs" : "other GEMMs"));
    cmd->add_option("--tokens", tokens, "token counts (M) for --model")->delimiter(',')->check(CLI::PositiveNumber);
    cmd->add_option("--json", json_path, "where to write the JSON (default bench/results/" + suite.name + "-<gpu>.json)");
    cmd->add_option("--csv", csv_path, "also write the rows as CSV");
    cmd->add_flag("--check,!--no-check", check, "check against the fp64 reference before timing (default)");
    cmd->add_option("--models", grid_models, "--grid over these catalogue models only")->delimiter(',');
    cmd->add_flag("--grid", grid, "every catalogue model's GEMMs on the dense token grid (M, M + 1, M - 3)");
    cmd->add_option("--grid-every", grid_every, "--grid with one base token count in this many")->check(CLI::PositiveNumber);
    cmd->add_option("--grid-offset", grid_offset,
                    "--grid-every's first base token count (0 to every - 1; the offsets together cover the grid)")
        ->check(CLI::NonNegativeNumber);
    cmd->add_option("--random", random, "this many random shapes (N, K multiples of 64 in [256, 65536], M in [1, 16384])")
        ->check(CLI::NonNegativeNumber);
    cmd->add_option("--seed", seed, "seed of --random's draws");
    cmd->add_option("--m-max", m_max, "--grid and --random: only shapes of at most this many tokens")
        ->check(CLI::PositiveNumber);
    cmd->add_option("--m-min", m_min, "--grid and --random: only shapes of at least this many tokens")
        ->check(CLI::PositiveNumber);
    cmd->add_option("--graphs-up-to", graphs_up_to, "with --grid or --random: CUDA-graph timing for M up to this");
    cmd->add_option("--epilogues", epilogues, "gemm: time only these epilogues (none is always timed)")->delimiter(',');
    cmd->add_flag("--sweep", sweep, "also time every compiled bf16 kernel at its default launch knobs (tuning)");
    cmd->add_flag("--sweep-knobs", sweep_knobs, "with --sweep: also other raster orders and tile swizzles");
    cmd->add_option("--sweep-only", sweep_only, "with --sweep: only kernels whose name contains one of these")
        ->delimiter(',');
    cmd->add_flag("--quick", quick, "fewer timed iterations");
    cmd->add_flag("--graphs", graphs, "time CUDA-graph launches (no host launch overhead; for small M)");
  }

  std::vector<Shape> resolve_shapes(const Suite& suite) const {
    if (!shapes.empty() && !model.empty()) throw CLI::ValidationError("--shape", "give --shape or --model, not both");
    std::vector<Shape> out;
    try {
      for (const std::string& s : shapes) out.push_back(parse_shape(s));
    } catch (const std::invalid_argument& e) {
      throw CLI::ValidationError("--shape", e.what());
    }
    if (!model.empty()) {
      try {
        const std::vector<std::int64_t>& t = tokens.empty() ? suite.model_tokens : tokens;
        out = suite.shapes_for_model ? suite.shapes_for_model(model, t) : model_shapes(model, suite.gated_model_gemms, t);
      } catch (const std::invalid_argument& e) {
        throw CLI::ValidationError("--model", e.what());
      }
    }
    if (grid_offset >= grid_every) {
      throw CLI::ValidationError("--grid-offset",
                                 "must be less than --grid-every (" + std::to_string(grid_every) + ")");
    }
    if (grid) {
      try {
        const std::vector<Shape> g = grid_shapes(suite.gated_model_gemms, grid_models, grid_every, grid_offset);
        out.insert(out.end(), g.begin(), g.end());
      } catch (const std::invalid_argument& e) {
        throw CLI::ValidationError("--models", e.what());
      }
    }
    const std::vector<Shape> r = random_shapes(random, seed, suite.gated_model_gemms);
    out.insert(out.end(), r.begin(), r.end());
    std::erase_if(out, [this](const Shape& s) {
      return (s.suite == "grid" || s.suite == "random") && (s.M < m_min || s.M > m_max);
    });
    return out.empty() ? suite.default_shapes : out;
  }
};

std::string command_line(int argc, char** argv) {
  std::string c;
  for (int i = 0; i < argc; ++i) c += (i ? " " : "") + std::string(argv[i]);
  return c;
}

std::string output_path(const std::string& given, const std::string& kind, const Report& report) {
  std::string path = given.empty() ? "bench/results/" + kind + "-" + slug(report.device.gpu) + ".json" : given;
  if (auto dir = std::filesystem::path(path).parent_path(); !dir.empty()) std::filesystem::create_directories(dir);
  return path;
}

// Checks and times every shape, rewriting the JSON after each; returns the number of shapes that
// threw (their rows are lost, the others kept). Grid and random shapes of at most `graphs_up_to`
// tokens are timed as CUDA graphs, as a serving engine launches them.
int run_suite(const Suite& suite, const std::vector<Shape>& shapes, const SuiteOptions& options,
              std::int64_t graphs_up_to, Report* report, const std::string& path) {
  int failed_shapes = 0;
  for_each_shape(suite.name.c_str(), shapes, [&](const Shape& s) {
    try {
      std::vector<Row> rows;
      SuiteOptions shape_options = options;
      if ((s.suite == "grid" || s.suite == "random") && s.M <= graphs_up_to) shape_options.timing.graphs = true;
      suite.run_shape(shape_options, report->device, report->ceilings, s, &rows);
      for (Row& r : rows) {
        r.extra["suite"] = s.suite;
        r.extra["graphs"] = shape_options.timing.graphs;
        if (!s.model.empty()) r.extra["model"] = s.model;
        if (!s.gemm.empty()) r.extra["gemm"] = s.gemm;
      }
      report->rows.insert(report->rows.end(), rows.begin(), rows.end());
    } catch (const std::exception& e) {
      ++failed_shapes;
      std::fprintf(stderr, "epifuse-bench: shape %lldx%lldx%lld failed: %s\n", static_cast<long long>(s.M),
                   static_cast<long long>(s.N), static_cast<long long>(s.K), e.what());
    }
    report->sm_clock_mhz_at_end = current_sm_clock_mhz();
    write_json(*report, path);
  });
  return failed_shapes;
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"epifuse-bench: epifuse kernels against cuBLASLt; correctness first, then time"};
  app.require_subcommand(0, 1);
  const std::vector<Suite>& table = suites();
  CommonOptions common;
  common.add_to(&app, table.front());
  std::vector<CLI::App*> commands;
  for (const Suite& suite : table) {
    commands.push_back(app.add_subcommand(suite.name, suite.description));
    common.add_to(commands.back(), suite);
  }
  std::vector<std::int64_t> accuracy_sizes = {1024, 2048, 4096, 8192};
  int accuracy_inits = 100;
  std::string accuracy_json;
  CLI::App* accuracy_cmd = app.add_subcommand("gated-accuracy", "gated accuracy table: fused and unfused bf16 vs fp64");
  accuracy_cmd->add_option("--size", accuracy_sizes, "M = N = K, repeatable")->check(CLI::Range(8, 65536));
  accuracy_cmd->add_option("--inits", accuracy_inits, "random draws per size")->check(CLI::Range(1, 10000));
  accuracy_cmd->add_option("--json", accuracy_json, "where to write the JSON (default bench/results/gated-accuracy-<gpu>.json)");
  int host_calls = 10000;
  std::string host_json;
  CLI::App* host_cmd = app.add_subcommand("host-cost", "CPU time per call of gemm, gated_mlp and the MoE ops at one token");
  host_cmd->add_option("--calls", host_calls, "calls per op")->check(CLI::Range(100, 10000000));
  host_cmd->add_option("--json", host_json, "where to write the JSON (default bench/results/host-cost-<gpu>.json)");
  CLI11_PARSE(app, argc, argv);
  for (std::int64_t size : accuracy_sizes) {
    if (size % 8 != 0) return app.exit(CLI::ValidationError("--size", "M = N = K must be a multiple of 8, got " + std::to_string(size)));
  }
  const Suite* suite = &table.front();
  for (std::size_t i = 0; i < table.size(); ++i) {
    if (commands[i]->parsed()) suite = &table[i];
  }

  std::vector<Shape> shapes;
  try {
    shapes = common.resolve_shapes(*suite);
  } catch (const CLI::Error& e) {
    return app.exit(e);
  }
  if (!accuracy_cmd->parsed() && !host_cmd->parsed()) {
    int invalid = 0;
    for (const Shape& s : shapes) {
      if (epifuse::Status st = suite->validate(s); !st.ok()) {
        std::fprintf(stderr, "epifuse-bench: shape %lldx%lldx%lld: %s\n", static_cast<long long>(s.M),
                     static_cast<long long>(s.N), static_cast<long long>(s.K), st.to_string().c_str());
        ++invalid;
      }
    }
    if (invalid) {
      std::fprintf(stderr, "epifuse-bench: %d shape(s) no kernel can run; nothing was measured\n", invalid);
      return 2;
    }
  }
  SuiteOptions options{common.check, common.sweep, common.sweep_knobs,
                       common.quick ? suite->quick_timing : suite->timing, common.epilogues, common.sweep_only};
  options.timing.graphs = common.graphs;

  bool usable = false;
  std::string why;
  Report report;
  report.device = query_device(&usable, &why);
  if (!usable) {
    fmt::print("epifuse-bench: {}; nothing was measured.\n\n", why);
    if (host_cmd->parsed()) {
      fmt::print("epifuse-bench host-cost would time {} calls each of gemm, gated_mlp, grouped_gated_mlp and moe_mlp "
                 "at one token.\n", host_calls);
    } else if (accuracy_cmd->parsed()) {
      fmt::print("epifuse-bench gated-accuracy would compare the fused SwiGLU kernel and the unfused bf16 path\n"
                 "against fp64 at M = N = K in {{{}}}, {} random draws each.\n", fmt::join(accuracy_sizes, ", "),
                 accuracy_inits);
    } else {
      suite->print_plan(shapes);
    }
    return 0;
  }

  try {
    report.commit = git_commit();
    report.date = utc_now_iso();
    report.command = command_line(argc, argv);
    epifuse::testing::run_seed();
    std::fprintf(stderr, "[bench] measuring ceilings\n");
    report.ceilings = measure_ceilings();
    if (host_cmd->parsed()) {
      nlohmann::json doc = to_json(report);
      doc.erase("rows");
      doc["host_cost"] = measure_host_cost(host_calls);
      const std::string path = output_path(host_json, "host-cost", report);
      std::ofstream(path) << doc.dump(2) << "\n";
      fmt::print("wrote {}\n", path);
      return 0;
    }
    if (accuracy_cmd->parsed()) {
      nlohmann::json table_json;
      run_gated_accuracy(accuracy_sizes, accuracy_inits, &table_json);
      nlohmann::json doc = to_json(report);
      doc.erase("rows");
      doc["accuracy"] = table_json;
      const std::string path = output_path(accuracy_json, "gated-accuracy", report);
      std::ofstream(path) << doc.dump(2) << "\n";
      fmt::print("\nwrote {}\n", path);
      return 0;
    }
    const std::string path = output_path(common.json_path, suite->name, report);
    const int failed_shapes = run_suite(*suite, shapes, options, common.graphs_up_to, &report, path);
    print_table(report);
    fmt::print("\nwrote {}\n", path);
    if (!common.csv_path.empty()) {
      write_csv(report, common.csv_path);
      fmt::print("wrote {}\n", common.csv_path);
    }
    const auto failed_checks =
        std::count_if(report.rows.begin(), report.rows.end(), [](const Row& r) { return r.check == "fail"; });
    if (failed_checks || failed_shapes) {
      std::fprintf(stderr, "epifuse-bench: %lld failed check(s), %d shape(s) not measured\n",
                   static_cast<long long>(failed_checks), failed_shapes);
      return 1;
    }
  } catch (const std::exception& e) {
    std::fprintf(stderr, "epifuse-bench: %s\n", e.what());
    return 1;
  }
  return 0;
}

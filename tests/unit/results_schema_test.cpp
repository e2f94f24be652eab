// The committed results (bench/results/**/*.json) against the schema other tools read (README
// "Benchmark"), and none of them with a failed check; accuracy and host-cost files hold tables,
// not rows. The directory is found from the working directory upwards, or given by
// $EPIFUSE_RESULTS_DIR: the binary does not depend on where it was built.
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

namespace {

namespace fs = std::filesystem;

fs::path results_dir() {
  if (const char* env = std::getenv("EPIFUSE_RESULTS_DIR")) return env;
  for (fs::path dir = fs::current_path(); !dir.empty(); dir = dir.parent_path()) {
    if (fs::is_directory(dir / "bench" / "results")) return dir / "bench" / "results";
    if (dir == dir.parent_path()) break;
  }
  return {};
}

std::vector<fs::path> result_files() {
  std::vector<fs::path> files;
  const fs::path dir = results_dir();
  if (dir.empty()) return files;
  for (const auto& entry : fs::recursive_directory_iterator(dir)) {
    if (entry.path().extension() == ".json") files.push_back(entry.path());
  }
  return files;
}

nlohmann::json load(const fs::path& path) {
  std::ifstream in(path);
  return nlohmann::json::parse(in, nullptr, /*allow_exceptions=*/false);
}

void expect_header(const nlohmann::json& j, const std::string& name) {
  ASSERT_FALSE(j.is_discarded()) << name << " is not JSON";
  for (const char* key : {"gpu", "driver", "cuda", "commit", "date", "ceilings", "device"}) {
    EXPECT_TRUE(j.contains(key)) << name << " lacks " << key;
  }
  for (const char* key : {"copy_gbps", "read_gbps", "peak_tflops"}) {
    ASSERT_TRUE(j["ceilings"].contains(key)) << name << " ceilings lack " << key;
    EXPECT_GT(j["ceilings"][key].get<double>(), 0.0) << name;
  }
}

TEST(ResultsSchema, TheResultsAreFound) {
  EXPECT_FALSE(results_dir().empty()) << "no bench/results above " << fs::current_path()
                                      << "; run from the repository or set EPIFUSE_RESULTS_DIR";
  EXPECT_GE(result_files().size(), 3u);
}

TEST(ResultsSchema, EveryFileHasEveryFieldAndNoFailedCheck) {
  for (const fs::path& path : result_files()) {
    const std::string name = path.filename().string();
    const nlohmann::json j = load(path);
    expect_header(j, name);
    if (j.contains("accuracy")) {
      ASSERT_FALSE(j["accuracy"].empty()) << name;
      for (const nlohmann::json& t : j["accuracy"]) {
        for (const char* side : {"fused_vs_fp64", "unfused_vs_fp64", "fused_vs_unfused"}) {
          for (const char* metric : {"max_abs_diff", "mean_abs_diff", "rel_l2_diff"}) {
            EXPECT_TRUE(t[side][metric].contains("mean") && t[side][metric].contains("std")) << name << " " << side;
          }
        }
      }
      continue;
    }
    if (j.contains("host_cost")) {
      ASSERT_FALSE(j["host_cost"].empty()) << name;
      for (const nlohmann::json& t : j["host_cost"]) {
        for (const char* key : {"op", "impl", "calls", "cpu_us_median", "cpu_us_mean", "cpu_us_p90"}) {
          EXPECT_TRUE(t.contains(key)) << name << ": a host-cost row lacks " << key;
        }
      }
      continue;
    }
    ASSERT_TRUE(j.contains("rows") && j["rows"].is_array() && !j["rows"].empty()) << name;
    for (const nlohmann::json& row : j["rows"]) {
      // Whole-model rows (bench/python) time a model call, not one op of a given M, N, K.
      const bool model = row.value("op", "") == "model";
      const std::vector<const char*> keys =
          model ? std::vector<const char*>{"op", "impl", "phase", "tokens", "batch", "median_ms", "p10_ms", "p90_ms",
                                           "peak_mem_mb", "check"}
                : std::vector<const char*>{"op", "impl", "M", "N", "K", "dtype", "epilogue", "median_us", "p10_us",
                                           "p90_us", "tflops", "check", "kernel"};
      for (const char* key : keys) {
        ASSERT_TRUE(row.contains(key)) << name << ": a row lacks " << key << ": " << row.dump();
      }
      const std::string check = row["check"].get<std::string>();
      EXPECT_TRUE(check == "pass" || check == "skipped") << name << ": a committed row has check '" << check
                                                         << "': " << row.dump();
      const char* unit = model ? "ms" : "us";
      const double p10 = row[std::string("p10_") + unit].get<double>();
      const double median = row[std::string("median_") + unit].get<double>();
      const double p90 = row[std::string("p90_") + unit].get<double>();
      EXPECT_LE(p10, median) << name;
      EXPECT_LE(median, p90) << name;
    }
  }
}

}  // namespace

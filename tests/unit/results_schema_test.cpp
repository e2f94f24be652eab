// The results JSON schema other tools read (README "Benchmark"), checked on the committed results.
#include <fstream>
#include <string>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

namespace {

nlohmann::json load(const std::string& name) {
  std::ifstream in(std::string(EPIFUSE_SOURCE_DIR) + "/bench/results/" + name);
  EXPECT_TRUE(in.good()) << name;
  return nlohmann::json::parse(in, nullptr, /*allow_exceptions=*/false);
}

void expect_header(const nlohmann::json& j, const std::string& name) {
  ASSERT_FALSE(j.is_discarded()) << name << " is not JSON";
  for (const char* key : {"gpu", "driver", "cuda", "commit", "date", "ceilings", "device"}) {
    EXPECT_TRUE(j.contains(key)) << name << " lacks " << key;
  }
  for (const char* key : {"copy_gbps", "read_gbps", "peak_tflops"}) {
    EXPECT_TRUE(j["ceilings"].contains(key)) << name << " ceilings lack " << key;
    EXPECT_GT(j["ceilings"][key].get<double>(), 0.0) << name;
  }
}

class ResultsSchema : public ::testing::TestWithParam<const char*> {};

TEST_P(ResultsSchema, RowsHaveEveryField) {
  const nlohmann::json j = load(GetParam());
  expect_header(j, GetParam());
  ASSERT_TRUE(j.contains("rows") && j["rows"].is_array() && !j["rows"].empty()) << GetParam();
  for (const nlohmann::json& row : j["rows"]) {
    for (const char* key : {"op", "impl", "M", "N", "K", "dtype", "epilogue", "median_us", "p10_us", "p90_us",
                            "tflops", "check", "kernel"}) {
      ASSERT_TRUE(row.contains(key)) << GetParam() << ": a row lacks " << key << ": " << row.dump();
    }
    const std::string check = row["check"].get<std::string>();
    EXPECT_TRUE(check == "pass" || check == "fail" || check == "skipped") << check;
    EXPECT_LE(row["p10_us"].get<double>(), row["median_us"].get<double>());
    EXPECT_LE(row["median_us"].get<double>(), row["p90_us"].get<double>());
  }
}

INSTANTIATE_TEST_SUITE_P(Committed, ResultsSchema,
                         ::testing::Values("gemm-nvidia-h200.json", "gated-nvidia-h200.json"));

TEST(ResultsSchema, AccuracyTableHasEveryField) {
  const nlohmann::json j = load("gated-accuracy-nvidia-h200.json");
  expect_header(j, "gated-accuracy");
  ASSERT_TRUE(j.contains("accuracy") && !j["accuracy"].empty());
  for (const nlohmann::json& t : j["accuracy"]) {
    for (const char* side : {"fused_vs_fp64", "unfused_vs_fp64", "fused_vs_unfused"}) {
      for (const char* metric : {"max_abs_diff", "mean_abs_diff", "rel_l2_diff"}) {
        EXPECT_TRUE(t[side][metric].contains("mean") && t[side][metric].contains("std")) << side << " " << metric;
      }
    }
  }
}

}  // namespace

// validate_gated_args: every rule of include/epifuse/gated.hpp, each broken once.
#include <cstdint>
#include <functional>
#include <string>
#include <utility>
#include <limits>

#include <gtest/gtest.h>

#include "epifuse/gated.hpp"

namespace epifuse {
namespace {

// Fake, well-aligned device addresses: validation never dereferences them.
const void* at(std::uintptr_t address) { return reinterpret_cast<const void*>(address); }

GatedArgs valid_args() {
  GatedArgs a;
  a.M = 333;
  a.N = 1000;
  a.x = at(0x10000000);
  a.ldx = 520;
  a.w.weight = at(0x20000000);
  a.w.ld = 520;
  a.w.N = 1000;
  a.w.K = 520;
  a.w.dtype = DType::kBF16;
  a.w.layout = GateUpLayout::kGateUpBlocks8;
  a.out = const_cast<void*>(at(0x30000000));
  a.ldo = 1000;
  return a;
}

TEST(ValidateGated, AcceptsValidArguments) {
  EXPECT_TRUE(validate_gated_args(valid_args()).ok());
  GatedArgs empty = valid_args();
  empty.M = 0;
  empty.x = nullptr;
  empty.out = nullptr;
  EXPECT_TRUE(validate_gated_args(empty).ok()) << "M = 0 is a no-op";
}

struct BadCase {
  const char* what;
  std::function<void(GatedArgs&)> breaks;
};

TEST(ValidateGated, RejectsEachBrokenRule) {
  const BadCase cases[] = {
      {"unpacked weight", [](GatedArgs& a) { a.w.layout = GateUpLayout::kUnpacked; }},
      {"layout of another version", [](GatedArgs& a) { a.w.layout = static_cast<GateUpLayout>(0xEF0B0802u); }},
      {"N not matching the packed weight", [](GatedArgs& a) { a.N = 992; }},
      {"odd packed width", [](GatedArgs& a) { a.w.N = a.N = 999; }},
      {"N not a multiple of 8", [](GatedArgs& a) { a.w.N = a.N = 1004; }},
      {"K not a multiple of 8", [](GatedArgs& a) { a.w.K = a.w.ld = 516; }},
      {"packed ld != K", [](GatedArgs& a) { a.w.ld = 528; }},
      {"fp32 weight", [](GatedArgs& a) { a.w.dtype = DType::kFP32; }},
      {"negative M", [](GatedArgs& a) { a.M = -1; }},
      {"M >= 2^31", [](GatedArgs& a) { a.M = std::int64_t{1} << 31; }},
      {"null x", [](GatedArgs& a) { a.x = nullptr; }},
      {"null out", [](GatedArgs& a) { a.out = nullptr; }},
      {"null weight", [](GatedArgs& a) { a.w.weight = nullptr; }},
      {"misaligned x", [](GatedArgs& a) { a.x = at(0x10000008); }},
      {"misaligned out", [](GatedArgs& a) { a.out = const_cast<void*>(at(0x30000002)); }},
      {"misaligned weight", [](GatedArgs& a) { a.w.weight = at(0x20000004); }},
      {"misaligned bias", [](GatedArgs& a) { a.w.bias = static_cast<const float*>(at(0x40000002)); }},
      {"ldx < K", [](GatedArgs& a) { a.ldx = 512; }},
      {"ldx not a multiple of 8", [](GatedArgs& a) { a.ldx = 524; }},
      {"ldo < N", [](GatedArgs& a) { a.ldo = 992; }},
      {"ldo not a multiple of 8", [](GatedArgs& a) { a.ldo = 1004; }},
      {"limit <= 0", [](GatedArgs& a) { a.limit = 0.0f; }},
      {"limit NaN", [](GatedArgs& a) { a.limit = std::numeric_limits<float>::quiet_NaN(); }},
      {"scale infinite", [](GatedArgs& a) { a.scale = std::numeric_limits<float>::infinity(); }},
      {"unknown activation", [](GatedArgs& a) { a.activation = static_cast<GatedActivation>(9); }},
      {"out overlaps x", [](GatedArgs& a) { a.out = const_cast<void*>(a.x); }},
      {"out overlaps the weight", [](GatedArgs& a) { a.out = const_cast<void*>(at(0x20000000 + 4096)); }},
      {"out overlaps the bias",
       [](GatedArgs& a) { a.w.bias = static_cast<const float*>(at(0x30000000 + 64)); }},
  };
  for (const BadCase& c : cases) {
    GatedArgs a = valid_args();
    c.breaks(a);
    const Status s = validate_gated_args(a);
    EXPECT_EQ(s.code(), StatusCode::kInvalidArgument) << c.what;
    EXPECT_NE(s.message().find("gated_mlp:"), std::string::npos) << c.what << ": " << s.message();
  }
}

}  // namespace
}  // namespace epifuse

namespace epifuse {
namespace {

// The shape classes of src/dispatch/sm90_gated_heuristics.cpp, and the fp16 fallbacks.
TEST(GatedHeuristic, PicksTheKernelOfEachShapeClass) {
  const std::pair<std::int64_t, const char*> expected[] = {
      {1, "sm90_gated_bf16_swap_coop_128x32x128_c1x1"},   {64, "sm90_gated_bf16_swap_coop_128x32x128_c1x1"},
      {65, "sm90_gated_bf16_pingpong_128x128x64_c1x2"},   {128, "sm90_gated_bf16_pingpong_128x128x64_c1x2"},
      {129, "sm90_gated_bf16_pingpong_128x128x64_c2x1"},  {4096, "sm90_gated_bf16_pingpong_128x128x64_c2x1"},
      {4097, "sm90_gated_bf16_pingpong_128x128x64_c1x2"}, {16384, "sm90_gated_bf16_pingpong_128x128x64_c1x2"},
  };
  for (const auto& [M, name] : expected) {
    GatedArgs a = valid_args();
    a.M = M;
    std::string picked;
    ASSERT_TRUE(gated_selected_kernel(a, &picked).ok());
    EXPECT_EQ(picked, name) << "M = " << M;
  }
  GatedArgs large = valid_args();  // Llama-405B: a 3.5 GB packed weight
  large.N = large.w.N = 53248;
  large.ldo = 53248;
  large.w.K = large.w.ld = large.ldx = 16384;
  large.x = at(0x100000000000);  // far apart: these operands are gigabytes
  large.w.weight = at(0x200000000000);
  large.out = const_cast<void*>(at(0x300000000000));
  for (const auto& [M, name] : {std::pair<std::int64_t, const char*>{2048, "sm90_gated_bf16_pingpong_128x128x64_c2x1"},
                                {2049, "sm90_gated_bf16_coop_128x256x64_c1x2"},
                                {16384, "sm90_gated_bf16_coop_128x256x64_c1x2"}}) {
    large.M = M;
    std::string picked;
    ASSERT_TRUE(gated_selected_kernel(large, &picked).ok());
    EXPECT_EQ(picked, name) << "405B-sized weight, M = " << M;
  }
  GatedArgs half = valid_args();
  half.w.dtype = DType::kFP16;
  std::string picked;
  half.M = 4096;
  ASSERT_TRUE(gated_selected_kernel(half, &picked).ok());
  EXPECT_EQ(picked, "sm90_gated_fp16_coop_128x256x64_c1x2");
  half.M = 16;
  ASSERT_TRUE(gated_selected_kernel(half, &picked).ok());
  EXPECT_EQ(picked, "sm90_gated_fp16_swap_coop_128x64x128_c1x1");
  GatedArgs forced = valid_args();
  forced.kernel = "sm90_gated_fp16_coop_128x256x64_c1x2";
  EXPECT_EQ(gated_selected_kernel(forced, &picked).code(), StatusCode::kInvalidArgument) << "dtype mismatch";
  forced.kernel = "no_such_kernel";
  EXPECT_EQ(gated_selected_kernel(forced, &picked).code(), StatusCode::kInvalidArgument);
}

}  // namespace
}  // namespace epifuse

// validate_gated_mlp_args: every rule of include/epifuse/gated_mlp.hpp, each broken once and
// matched by its message.
#include <cstdint>
#include <functional>
#include <limits>
#include <string>

#include <gtest/gtest.h>

#include "epifuse/gated_mlp.hpp"

namespace epifuse {
namespace {

// Fake, well-aligned device addresses: validation never dereferences them.
const void* at(std::uintptr_t address) { return reinterpret_cast<const void*>(address); }

GatedMlpArgs valid_args() {
  GatedMlpArgs a;
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

TEST(ValidateGatedMlp, AcceptsValidArguments) {
  EXPECT_TRUE(validate_gated_mlp_args(valid_args()).ok());
  GatedMlpArgs empty = valid_args();
  empty.M = 0;
  empty.x = nullptr;
  empty.out = nullptr;
  EXPECT_TRUE(validate_gated_mlp_args(empty).ok()) << "M = 0 is a no-op";
  GatedMlpArgs half = valid_args();
  half.x_dtype = half.out_dtype = half.w.dtype = DType::kFP16;
  EXPECT_TRUE(validate_gated_mlp_args(half).ok());
}

struct BadCase {
  const char* message;  // what the Status says
  std::function<void(GatedMlpArgs&)> breaks;
  StatusCode code = StatusCode::kInvalidArgument;
};

TEST(ValidateGatedMlp, RejectsEachBrokenRuleWithItsMessage) {
  constexpr float kNaN = std::numeric_limits<float>::quiet_NaN();
  const BadCase cases[] = {
      {"layout tag (0x00000000) is not kGateUpBlocks8", [](auto& a) { a.w.layout = GateUpLayout::kUnpacked; }},
      {"layout tag (0xef0b0802) is not kGateUpBlocks8",
       [](auto& a) { a.w.layout = static_cast<GateUpLayout>(0xEF0B0802u); }},
      {"N (992) does not match the packed weight's N (1000)", [](auto& a) { a.N = 992; }},
      {"N (999) must be a positive multiple of 8", [](auto& a) { a.w.N = a.N = 999; }},
      {"N (1004) must be a positive multiple of 8", [](auto& a) { a.w.N = a.N = 1004; }},
      {"K (516) must be a positive multiple of 8", [](auto& a) { a.w.K = a.w.ld = 516; }},
      {"the packed weight's ld (528) must equal K (520)", [](auto& a) { a.w.ld = 528; }},
      {"weight fp32, out bf16 is not compiled", [](auto& a) { a.w.dtype = DType::kFP32; },
       StatusCode::kNotSupported},
      {"x fp16, weight bf16, out bf16 is not compiled", [](auto& a) { a.x_dtype = DType::kFP16; },
       StatusCode::kNotSupported},
      {"x bf16, weight bf16, out fp32 is not compiled", [](auto& a) { a.out_dtype = DType::kFP32; },
       StatusCode::kNotSupported},
      {"M must be >= 0, got -1", [](auto& a) { a.M = -1; }},
      {"M must be < 2^31", [](auto& a) { a.M = std::int64_t{1} << 31; }},
      {"2N must be < 2^31, got N = 1073741824", [](auto& a) { a.w.N = a.N = std::int64_t{1} << 30; }},
      {"x is null", [](auto& a) { a.x = nullptr; }},
      {"out is null", [](auto& a) { a.out = nullptr; }},
      {"the weight is null", [](auto& a) { a.w.weight = nullptr; }},
      {"x must be 16-byte aligned", [](auto& a) { a.x = at(0x10000008); }},
      {"out must be 16-byte aligned", [](auto& a) { a.out = const_cast<void*>(at(0x30000002)); }},
      {"the weight must be 16-byte aligned", [](auto& a) { a.w.weight = at(0x20000004); }},
      {"the bias must be 4-byte aligned", [](auto& a) { a.w.bias = static_cast<const float*>(at(0x40000002)); }},
      {"ldx (512) must be >= K (520)", [](auto& a) { a.ldx = 512; }},
      {"ldx (524) must be a multiple of 8 elements", [](auto& a) { a.ldx = 524; }},
      {"ldx (549755813888) must be below 2^40 bytes", [](auto& a) { a.M = 1, a.ldx = std::int64_t{1} << 39; }},
      {"ldo (992) must be >= N (1000)", [](auto& a) { a.ldo = 992; }},
      {"ldo (1004) must be a multiple of 8 elements", [](auto& a) { a.ldo = 1004; }},
      {"limit must be > 0", [](auto& a) { a.limit = 0.0f; }},
      {"limit must be > 0", [kNaN](auto& a) { a.limit = kNaN; }},
      {"scale must be finite", [](auto& a) { a.scale = std::numeric_limits<float>::infinity(); }},
      {"scale must be finite", [kNaN](auto& a) { a.scale = kNaN; }},
      {"activation 9 is not a GatedActivation", [](auto& a) { a.activation = static_cast<GatedActivation>(9); }},
      {"out overlaps x", [](auto& a) { a.out = const_cast<void*>(a.x); }},
      {"out overlaps the weight", [](auto& a) { a.out = const_cast<void*>(at(0x20000000 + 4096)); }},
      {"out overlaps the bias", [](auto& a) { a.w.bias = static_cast<const float*>(at(0x30000000 + 64)); }},
      {"the workspace overlaps x", [](auto& a) { a.workspace = const_cast<void*>(at(0x10000000 + 256)), a.workspace_bytes = 64; }},
      {"out overlaps the workspace", [](auto& a) { a.workspace = const_cast<void*>(at(0x30000000)), a.workspace_bytes = 64; }},
      {"x would extend past the end of the address space",
       [](auto& a) { a.x = at(0xFFFFFFFFFFFF0000ull), a.M = 1 << 20; }},
  };
  for (const BadCase& c : cases) {
    GatedMlpArgs a = valid_args();
    c.breaks(a);
    const Status s = validate_gated_mlp_args(a);
    EXPECT_EQ(s.code(), c.code) << c.message << ": " << s.to_string();
    EXPECT_EQ(s.message().rfind("gated_mlp: ", 0), 0u) << s.message();
    EXPECT_NE(s.message().find(c.message), std::string::npos) << "expected: " << c.message << "\ngot: " << s.message();
  }
}

}  // namespace
}  // namespace epifuse

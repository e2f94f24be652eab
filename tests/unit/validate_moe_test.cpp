// validate_grouped_gemm_args and validate_moe_mlp_args: the rules of include/epifuse/grouped_gemm.hpp
// and moe_mlp.hpp, each broken once and matched by its message, and the grouped GEMM's launches
// chosen on the table.
#include <cstdint>
#include <functional>
#include <string>
#include <utility>
#include <vector>

#include <gtest/gtest.h>

#include "dispatch/kernel_table.hpp"
#include "dispatch/select.hpp"
#include "epifuse/grouped_gemm.hpp"
#include "epifuse/moe_mlp.hpp"

namespace epifuse {
namespace {

// Fake, well-aligned device addresses: validation never dereferences them.
void* at(std::uintptr_t address) { return reinterpret_cast<void*>(address); }

template <class Args>
void expect_each_rejected(const Args& valid, Status (*validate)(const Args&),
                          const std::vector<std::pair<const char*, std::function<void(Args&)>>>& cases) {
  for (const auto& [message, breaks] : cases) {
    Args a = valid;
    breaks(a);
    const Status s = validate(a);
    EXPECT_EQ(s.code(), StatusCode::kInvalidArgument) << message;
    EXPECT_NE(s.message().find(message), std::string::npos) << "expected '" << message << "' in: " << s.message();
  }
}

GroupedGemmArgs valid_grouped_gemm() {
  GroupedGemmArgs a;
  GemmArgs& g = a.gemm;
  g.M = 434;
  g.N = 1000;
  g.K = 520;
  g.A = at(0x10000000);
  g.lda = 520;
  g.B = at(0x20000000);
  g.ldb = 520;
  g.D = at(0x80000000);
  g.ldd = 1000;
  a.experts = 8;
  a.expert_offsets = static_cast<const std::int32_t*>(at(0x90000000));
  a.weight_stride = 1000 * 520;
  return a;
}

TEST(ValidateGroupedGemm, AcceptsValidArguments) {
  EXPECT_TRUE(validate_grouped_gemm_args(valid_grouped_gemm()).ok());
  GroupedGemmArgs empty = valid_grouped_gemm();
  empty.gemm.M = 0;
  EXPECT_TRUE(validate_grouped_gemm_args(empty).ok()) << "T = 0 is a no-op";
}

TEST(ValidateGroupedGemm, RejectsEachBrokenRuleWithItsMessage) {
  expect_each_rejected<GroupedGemmArgs>(
      valid_grouped_gemm(), validate_grouped_gemm_args,
      {{"the epilogue must be the cast alone", [](auto& a) { a.gemm.epilogue.alpha = 2.0f; }},
       {"experts (0) must be >= 1", [](auto& a) { a.experts = 0; }},
       {"expert_offsets is null", [](auto& a) { a.expert_offsets = nullptr; }},
       {"weight_stride (519992) must be a multiple of 8 and at least one weight",
        [](auto& a) { a.weight_stride = 1000 * 520 - 8; }},
       {"weight_stride (520004)", [](auto& a) { a.weight_stride = 1000 * 520 + 4; }},
       {"max_expert_rows (-1) must be >= 0", [](auto& a) { a.max_expert_rows = -1; }},
       {"over all T rows, gemm:", [](auto& a) { a.gemm.lda = 100; }},
       {"D overlaps the weights", [](auto& a) { a.gemm.D = at(0x20000000 + 7 * 1000 * 520 * 2); }},
       {"D overlaps expert_offsets", [](auto& a) { a.expert_offsets = static_cast<const std::int32_t*>(a.gemm.D); }}});
}

TEST(GroupedGemmHeuristics, RunsTheSwappedAndUnswappedGroupedGemmKernels) {
  detail::DeviceCaps caps;
  caps.cc_major = 9;
  caps.sm_count = 132;
  std::vector<detail::GroupedLaunch> launches;
  ASSERT_TRUE(detail::select(valid_grouped_gemm(), caps, detail::kernel_table(), &launches).ok());
  ASSERT_EQ(launches.size(), 4u);  // the gated op's rule (validate_grouped_test.cpp) without a paired kernel
  for (const auto& launch : launches) {
    EXPECT_EQ(launch.choice.key.op, Op::kGemm);
    EXPECT_EQ(launch.choice.key.grouping, Grouping::kGrouped);
    EXPECT_EQ(launch.tiers.swap_ab[launch.tier], launch.choice.key.swap_ab);
  }
  EXPECT_TRUE(launches[0].choice.key.swap_ab);
  EXPECT_FALSE(launches[1].choice.key.swap_ab);
  EXPECT_EQ(launches[0].tiers.tier_of(64), 0);
  EXPECT_EQ(launches[0].tiers.tier_of(65), 1);
  EXPECT_EQ(launches[0].tiers.tier_of(129), 2);

  GroupedGemmArgs bounded = valid_grouped_gemm();  // the caller knows no expert has more than 64 rows
  bounded.max_expert_rows = 64;
  ASSERT_TRUE(detail::select(bounded, caps, detail::kernel_table(), &launches).ok());
  ASSERT_EQ(launches.size(), 1u);
  EXPECT_TRUE(launches[0].choice.key.swap_ab);
  EXPECT_TRUE(launches[0].tiers.swap_ab[0]);
  EXPECT_EQ(launches[0].tiers.count, 1) << "every expert: one past a wrong bound is still computed";

  GemmArgs dense = valid_grouped_gemm().gemm;  // a grouped kernel is not the dense op's
  dense.kernel = KernelChoice{launches[0].choice.key};
  KernelChoice choice;
  const Status s = detail::select(dense, caps, detail::kernel_table(), &choice);
  EXPECT_EQ(s.code(), StatusCode::kInvalidArgument);
  EXPECT_NE(s.message().find("grouped_gemm runs it"), std::string::npos) << s.message();
}

MoeMlpArgs valid_moe() {
  MoeMlpArgs a;
  a.tokens = 33;
  a.experts = 8;
  a.topk = 2;
  a.x = at(0x10000000);
  a.ldx = 512;
  a.topk_ids = static_cast<const std::int32_t*>(at(0x11000000));
  a.topk_weights = static_cast<const float*>(at(0x12000000));
  a.gate_up.weight = at(0x20000000);
  a.gate_up.ld = 512;
  a.gate_up.N = 256;
  a.gate_up.K = 512;
  a.gate_up.layout = GateUpLayout::kGateUpBlocks8;
  a.gate_up_stride = 2 * 256 * 512;
  a.down = at(0x30000000);
  a.down_stride = 256 * 512;
  a.y = at(0x80000000);
  a.ldy = 512;
  return a;
}

TEST(ValidateMoeMlp, AcceptsValidArguments) {
  EXPECT_TRUE(validate_moe_mlp_args(valid_moe()).ok());
  MoeMlpArgs in_place = valid_moe();
  in_place.add = in_place.y;
  in_place.ld_add = in_place.ldy;
  EXPECT_TRUE(validate_moe_mlp_args(in_place).ok()) << "add may be y";
  MoeMlpArgs empty = valid_moe();
  empty.tokens = 0;
  EXPECT_TRUE(validate_moe_mlp_args(empty).ok()) << "T = 0 is a no-op";
}

TEST(ValidateMoeMlp, RejectsEachBrokenRuleWithItsMessage) {
  expect_each_rejected<MoeMlpArgs>(
      valid_moe(), validate_moe_mlp_args,
      {{"experts (0) must be >= 1", [](auto& a) { a.experts = 0; }},
       {"k (9) must be in [1, experts = 8]", [](auto& a) { a.topk = 9; }},
       {"k (0) must be in", [](auto& a) { a.topk = 0; }},
       {"gate_up is not packed", [](auto& a) { a.gate_up.layout = GateUpLayout::kUnpacked; }},
       {"gate_up.bias must be null", [](auto& a) { a.gate_up.bias = static_cast<const float*>(at(0x40000000)); }},
       {"N (250) must be a positive multiple of 8", [](auto& a) { a.gate_up.N = 250; }},
       {"gate_up_stride (262136)", [](auto& a) { a.gate_up_stride = 2 * 256 * 512 - 8; }},
       {"down_stride (131064)", [](auto& a) { a.down_stride = 256 * 512 - 8; }},
       {"ldy", [](auto& a) { a.ldy = 500; }},
       {"limit must be > 0", [](auto& a) { a.limit = 0.0f; }},
       {"topk_ids is null", [](auto& a) { a.topk_ids = nullptr; }},
       {"topk_weights must be 4-byte aligned",
        [](auto& a) { a.topk_weights = static_cast<const float*>(at(0x12000002)); }},
       {"y overlaps x", [](auto& a) { a.y = at(0x10000000 + 512 * 2 * 32); }},
       {"y overlaps the down weights", [](auto& a) { a.y = at(0x30000000 + 7 * 256 * 512 * 2); }},
       {"add is y (in place) with ld_add", [](auto& a) {
          a.add = a.y;
          a.ld_add = 1024;
        }}});
}

}  // namespace
}  // namespace epifuse

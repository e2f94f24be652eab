// validate_grouped_gated_mlp_args: the grouped rules of include/epifuse/grouped_gated_mlp.hpp,
// each broken once and matched by its message, and the grouped launches chosen on the table.
#include <cstdint>
#include <functional>
#include <tuple>
#include <utility>
#include <vector>
#include <string>

#include <gtest/gtest.h>

#include "dispatch/kernel_table.hpp"
#include "dispatch/select.hpp"
#include "epifuse/grouped_gated_mlp.hpp"

namespace epifuse {
namespace {

// Fake, well-aligned device addresses: validation never dereferences them.
const void* at(std::uintptr_t address) { return reinterpret_cast<const void*>(address); }

GroupedGatedMlpArgs valid_args() {
  GroupedGatedMlpArgs a;
  GatedMlpArgs& g = a.gated;
  g.M = 434;
  g.N = 1000;
  g.x = at(0x10000000);
  g.ldx = 520;
  g.w.weight = at(0x20000000);
  g.w.ld = 520;
  g.w.N = 1000;
  g.w.K = 520;
  g.w.layout = GateUpLayout::kGateUpBlocks8;
  g.w.bias = static_cast<const float*>(at(0x70000000));
  g.out = const_cast<void*>(at(0x80000000));
  g.ldo = 1000;
  a.experts = 8;
  a.expert_offsets = static_cast<const std::int32_t*>(at(0x90000000));
  a.weight_stride = 2 * 1000 * 520;
  a.bias_stride = 2 * 1000;
  return a;
}

TEST(ValidateGroupedGatedMlp, AcceptsValidArguments) {
  EXPECT_TRUE(validate_grouped_gated_mlp_args(valid_args()).ok());
  GroupedGatedMlpArgs empty = valid_args();
  empty.gated.M = 0;
  EXPECT_TRUE(validate_grouped_gated_mlp_args(empty).ok()) << "T = 0 is a no-op";
}

TEST(ValidateGroupedGatedMlp, RejectsEachBrokenRuleWithItsMessage) {
  const std::pair<const char*, std::function<void(GroupedGatedMlpArgs&)>> cases[] = {
      {"experts (0) must be >= 1", [](auto& a) { a.experts = 0; }},
      {"expert_offsets is null", [](auto& a) { a.expert_offsets = nullptr; }},
      {"expert_offsets must be 4-byte aligned",
       [](auto& a) { a.expert_offsets = static_cast<const std::int32_t*>(at(0x90000002)); }},
      {"weight_stride (8) must be a multiple of 8 and at least one packed weight",
       [](auto& a) { a.weight_stride = 8; }},
      {"weight_stride (1040004)", [](auto& a) { a.weight_stride = 2 * 1000 * 520 + 4; }},
      {"bias_stride (1999) must be at least one packed bias", [](auto& a) { a.bias_stride = 1999; }},
      {"max_expert_rows (-5) must be >= 0", [](auto& a) { a.max_expert_rows = -5; }},
      {"over all T rows, gated_mlp: N (992) does not match", [](auto& a) { a.gated.N = 992; }},
      {"out overlaps the weights",
       [](auto& a) { a.gated.out = const_cast<void*>(at(0x20000000 + 7 * 2 * 1000 * 520 * 2)); }},
      {"out overlaps expert_offsets", [](auto& a) { a.expert_offsets = static_cast<const std::int32_t*>(a.gated.out); }},
  };
  for (const auto& [message, breaks] : cases) {
    GroupedGatedMlpArgs a = valid_args();
    breaks(a);
    const Status s = validate_grouped_gated_mlp_args(a);
    EXPECT_EQ(s.code(), StatusCode::kInvalidArgument) << message;
    EXPECT_NE(s.message().find(message), std::string::npos) << "expected '" << message << "' in: " << s.message();
  }
}

detail::DeviceCaps h200() {
  detail::DeviceCaps caps;
  caps.cc_major = 9;
  caps.sm_count = 132;
  return caps;
}

// Without a forced kernel a call runs three grouped kernels, each over the experts it suits: the
// narrowest swapped one over experts of at most 64 rows, the widest swapped one over those its one
// token tile holds, the unswapped one of the widest tile over the rest, each rastered along the
// rows. The launch of the largest experts the call's rows (or the caller's bound) admit takes every
// expert above its predecessors' and the later ones are left out; a forced kernel runs every expert.
TEST(GroupedHeuristics, EachKernelRunsTheExpertsItSuits) {
  std::vector<detail::GroupedLaunch> launches;
  ASSERT_TRUE(detail::select(valid_args(), h200(), detail::kernel_table(), &launches).ok());
  ASSERT_EQ(launches.size(), 3u);
  const KernelKey wide = launches[1].choice.key;
  const KernelKey unswapped = launches[2].choice.key;
  EXPECT_TRUE(launches[0].choice.key.swap_ab);
  EXPECT_EQ(launches[0].choice.key.tile.n, 32);
  EXPECT_EQ(launches[0].rows_min, 1);
  EXPECT_EQ(launches[0].rows_max, 64);
  EXPECT_TRUE(wide.swap_ab);
  EXPECT_GT(wide.tile.n, 64);
  EXPECT_EQ(launches[1].rows_min, 65);
  EXPECT_EQ(launches[1].rows_max, wide.tile.n);
  EXPECT_FALSE(unswapped.swap_ab);
  EXPECT_EQ(launches[2].rows_min, wide.tile.n + 1);
  EXPECT_EQ(launches[2].rows_max, INT32_MAX);
  EXPECT_EQ(unswapped.tile.n * unswapped.cluster.n, 512) << "the widest unswapped grouped kernel: 128x256, 1x2";
  for (const auto& launch : launches) EXPECT_EQ(launch.choice.key.grouping, Grouping::kGrouped);
  // Each walks an expert's rows first, so that each weight tile is read about once.
  EXPECT_EQ(launches[0].choice.raster, RasterOrder::kAlongN) << "swapped: the rows are wgmma's N";
  EXPECT_EQ(launches[1].choice.raster, RasterOrder::kAlongN);
  EXPECT_EQ(launches[2].choice.raster, RasterOrder::kAlongM);

  GroupedGatedMlpArgs few_rows = valid_args();  // 64 rows in all: no expert has more
  few_rows.gated.M = 64;
  ASSERT_TRUE(detail::select(few_rows, h200(), detail::kernel_table(), &launches).ok());
  ASSERT_EQ(launches.size(), 1u);
  EXPECT_TRUE(launches[0].choice.key.swap_ab);
  EXPECT_EQ(launches[0].rows_max, INT32_MAX);

  GroupedGatedMlpArgs bounded = valid_args();  // 434 rows; the bound says how many an expert has at most
  for (const std::int64_t bound : std::vector<std::int64_t>{64, 65, wide.tile.n, wide.tile.n + 1}) {
    bounded.max_expert_rows = bound;
    ASSERT_TRUE(detail::select(bounded, h200(), detail::kernel_table(), &launches).ok());
    const std::size_t expected = bound <= 64 ? 1 : bound <= wide.tile.n ? 2 : 3;
    ASSERT_EQ(launches.size(), expected) << "max_expert_rows " << bound;
    EXPECT_EQ(launches.back().rows_max, INT32_MAX) << "an expert past a wrong bound is still computed";
  }

  GroupedGatedMlpArgs forced = valid_args();
  forced.gated.kernel = KernelChoice{unswapped};
  ASSERT_TRUE(detail::select(forced, h200(), detail::kernel_table(), &launches).ok());
  ASSERT_EQ(launches.size(), 1u);
  EXPECT_EQ(launches[0].rows_min, 1);
  EXPECT_EQ(launches[0].rows_max, INT32_MAX);
}

}  // namespace
}  // namespace epifuse

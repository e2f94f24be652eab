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
#include "epifuse/grouped_gemm.hpp"

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

// Without a forced kernel a call runs each grouped kernel over the experts its tier gets: the
// narrowest swapped one those of at most 64 rows, the others those whose rows their tiles pad
// least (the unswapped 128-row tiles, the wide swapped ones' token tiles, the paired swapped one's
// pairs of 128-row token tiles where the last pair is at least 0.85 full), each rastered along the
// rows. A wide or paired kernel launches only where the call's rows (or the caller's bound) admit
// an expert it would take; a forced kernel runs every expert.
TEST(GroupedHeuristics, EachKernelRunsTheExpertsItSuits) {
  std::vector<detail::GroupedLaunch> launches;
  ASSERT_TRUE(detail::select(valid_args(), h200(), detail::kernel_table(), &launches).ok());
  ASSERT_EQ(launches.size(), 5u);
  const detail::GroupTiers& tiers = launches[0].tiers;
  EXPECT_EQ(tiers.count, 5);
  EXPECT_EQ(tiers.few_rows_max, 64);
  for (int t = 0; t < 5; ++t) {
    EXPECT_EQ(launches[t].tier, t);
    EXPECT_EQ(launches[t].choice.key.grouping, Grouping::kGrouped);
    EXPECT_EQ(launches[t].choice.key.swap_ab, t != 1);
    // The setup kernel writes each launch's arrays in its kernel's operand order.
    EXPECT_EQ(tiers.swap_ab[t], launches[t].choice.key.swap_ab);
    // Each walks an expert's rows first, so that each weight tile is read about once.
    EXPECT_EQ(launches[t].choice.raster, t != 1 ? RasterOrder::kAlongN : RasterOrder::kAlongM);
  }
  const KernelKey narrow = launches[0].choice.key;
  const KernelKey unswapped = launches[1].choice.key;
  EXPECT_EQ(launches[0].choice.key.tile.n, 32);
  EXPECT_EQ(unswapped.tile.n * unswapped.cluster.n, 512) << "the widest unswapped grouped kernel: 128x256, 1x2";
  EXPECT_EQ(launches[2].choice.key.tile.n, 160);
  EXPECT_EQ(launches[3].choice.key.tile.n, 208);
  const KernelKey paired = launches[4].choice.key;
  EXPECT_EQ(paired.tile.n * paired.cluster.n, 256) << "two 128-row token tiles per cluster";
  EXPECT_EQ(tiers.tile_rows[4], 256);
  // Rows -> tier: few rows; one 128-row tile; one 160-row tile, not two of 128; one of 208; two of
  // 128 where a pair's last tile would be short (209-217), a pair from 218 (0.85 of 256); two of
  // 160 (320 rows, not 384); three of 128 (333); two of 208 (400); pairs at 480 and 1500 (last
  // pairs 0.88 and 0.86 full), not at 1100 (0.30); 777 rows: five of 160 (800, not 896).
  const std::vector<std::pair<std::int32_t, int>> expected = {
      {1, 0},   {64, 0},  {65, 1},   {128, 1},  {129, 2},  {160, 2},  {161, 3},  {208, 3},
      {209, 1}, {217, 1}, {218, 4},  {256, 4},  {257, 2},  {300, 2},  {333, 1},  {400, 3},
      {480, 4}, {777, 2}, {1024, 4}, {1100, 1}, {1500, 4}, {4096, 4}};
  for (const auto& [rows, tier] : expected) EXPECT_EQ(tiers.tier_of(rows), tier) << rows << " rows";

  GroupedGatedMlpArgs few_rows = valid_args();  // 64 rows in all: no expert has more
  few_rows.gated.M = 64;
  ASSERT_TRUE(detail::select(few_rows, h200(), detail::kernel_table(), &launches).ok());
  ASSERT_EQ(launches.size(), 1u);
  EXPECT_TRUE(launches[0].choice.key.swap_ab);
  EXPECT_EQ(launches[0].tiers.count, 1) << "every expert";
  EXPECT_TRUE(launches[0].tiers.swap_ab[0]);

  // 434 rows; the bound says how many an expert has at most. The launches it leaves out would get
  // no expert under it; an expert past a wrong bound still gets a tier among those launched.
  GroupedGatedMlpArgs bounded = valid_args();
  for (const auto& [bound, count] : std::vector<std::pair<std::int64_t, std::size_t>>{
           {64, 1}, {65, 2}, {128, 2}, {129, 3}, {160, 3}, {161, 4}, {208, 4}, {209, 5}}) {
    bounded.max_expert_rows = bound;
    ASSERT_TRUE(detail::select(bounded, h200(), detail::kernel_table(), &launches).ok());
    ASSERT_EQ(launches.size(), count) << "max_expert_rows " << bound;
    EXPECT_EQ(launches[0].tiers.count, static_cast<int>(count));
    EXPECT_LT(launches[0].tiers.tier_of(100000), static_cast<int>(count));
    for (std::size_t t = 0; t < count; ++t) EXPECT_EQ(launches[0].tiers.swap_ab[t], launches[t].choice.key.swap_ab);
  }

  // The paired kernel reads an expert's x once per pair of weight tiles: it joins only where no
  // expert's x can exceed 128 MiB (8192 rows of K = 7168 can, 16384 cannot).
  GroupedGatedMlpArgs long_x = valid_args();
  long_x.gated.M = 131072;
  long_x.gated.w.K = long_x.gated.ldx = long_x.gated.w.ld = 7168;
  for (const auto& [bound, count] :
       std::vector<std::pair<std::int64_t, std::size_t>>{{8192, 5}, {16384, 4}, {0, 4}}) {
    long_x.max_expert_rows = bound;
    ASSERT_TRUE(detail::select(long_x, h200(), detail::kernel_table(), &launches).ok());
    EXPECT_EQ(launches.size(), count) << "max_expert_rows " << bound;
  }

  GroupedGatedMlpArgs forced = valid_args();
  forced.gated.kernel = KernelChoice{unswapped};
  ASSERT_TRUE(detail::select(forced, h200(), detail::kernel_table(), &launches).ok());
  ASSERT_EQ(launches.size(), 1u);
  EXPECT_EQ(launches[0].tiers.count, 1) << "every expert";
  EXPECT_FALSE(launches[0].tiers.swap_ab[0]);
  forced.gated.kernel = KernelChoice{narrow};
  ASSERT_TRUE(detail::select(forced, h200(), detail::kernel_table(), &launches).ok());
  ASSERT_EQ(launches.size(), 1u);
  EXPECT_TRUE(launches[0].tiers.swap_ab[0]);
}

// The warp-mma kernel alone runs every expert where no expert can have more than 2 rows and either
// the experts that can have rows hold at most 128 MiB of weights, or the 128x32 kernel would have
// at most 1.5 tiles per SM (198 on 132 SMs), or its tiles would fill less than 0.92 of the SMs over
// its waves for any count of experts with rows, where the kernel runs its pairs CTAs (gate/up rows
// under 6144 elements); on the pairs also gate/up experts of at least 24576 packed rows with up to
// 8 rows each; the CUTLASS kernels otherwise.
TEST(GroupedHeuristics, TwoRowsOnSmallOrFewTileExpertsRunOnTheWarpMmaKernel) {
  auto schedule_of = [](const auto& args) {
    std::vector<detail::GroupedLaunch> launches;
    EXPECT_TRUE(detail::select(args, h200(), detail::kernel_table(), &launches).ok());
    if (launches.empty()) return Schedule::kCooperative;
    if (launches[0].choice.key.schedule == Schedule::kWarpMma) {
      EXPECT_EQ(launches.size(), 1u);
      EXPECT_EQ(launches[0].tiers.count, 1) << "every expert";
      EXPECT_EQ(launches[0].choice.key.grouping, Grouping::kGrouped);
    }
    return launches[0].choice.key.schedule;
  };
  GroupedGatedMlpArgs gate_up = valid_args();  // 8 experts of 2 x 1000 x 520
  for (std::int64_t bound : {1, 2}) {
    gate_up.max_expert_rows = bound;
    EXPECT_EQ(schedule_of(gate_up), Schedule::kWarpMma) << bound;
  }
  gate_up.max_expert_rows = 3;
  EXPECT_NE(schedule_of(gate_up), Schedule::kWarpMma);
  gate_up.max_expert_rows = 0;
  gate_up.gated.M = 2;
  EXPECT_EQ(schedule_of(gate_up), Schedule::kWarpMma) << "2 rows in all";
  // gpt-oss-20b (32 experts of 2 x 2880 x 2880) at one token: 4 experts, 133 MB; at 2 tokens: 4-8,
  // 180-360 tiles (0.68-0.91 of the SMs).
  // Mixtral-8x7B (8 of 2 x 14336 x 4096) at one token: 2 experts, 470 MB in 448 tiles (0.85 of the
  // SMs over 4 waves). Its experts of 28672 packed rows take up to 8 rows each on the pairs
  // whatever the tiles fill: at 2 tokens 2-4 experts (up to 896 tiles, 0.97), at 8 tokens up to 8;
  // not at 9 tokens. Llama-4 Scout (16 of 2 x 8192 x 5120) at 2 tokens: 2 experts, 256 tiles
  // (0.97), 16384 rows each. DeepSeek-V3 (256 of 2 x 2048 x 7168) at one token: 8 experts, 256
  // tiles (0.97); DBRX (16 of 2 x 10752 x 6144): 4 experts, 672 tiles (0.85), but rows of 6144 run
  // on the singles.
  struct Experts {
    std::int64_t experts, n, k, rows, bound;
    bool warp_mma;
  };
  const Experts models[] = {
      {32, 2880, 2880, 4, 1, true},   {32, 2880, 2880, 8, 2, true},   {8, 14336, 4096, 2, 1, true},
      {8, 14336, 4096, 4, 2, true},   {8, 14336, 4096, 16, 8, true},  {8, 14336, 4096, 18, 9, false},
      {16, 8192, 5120, 2, 2, false},  {256, 2048, 7168, 8, 1, false}, {16, 10752, 6144, 4, 1, false},
  };
  for (const Experts& m : models) {
    gate_up.experts = m.experts;
    gate_up.gated.M = m.rows;
    gate_up.max_expert_rows = m.bound;
    gate_up.gated.N = gate_up.gated.w.N = gate_up.gated.ldo = m.n;
    gate_up.gated.w.K = gate_up.gated.ldx = gate_up.gated.w.ld = m.k;
    gate_up.weight_stride = 2 * m.n * m.k;
    gate_up.bias_stride = 2 * m.n;
    EXPECT_EQ(schedule_of(gate_up) == Schedule::kWarpMma, m.warp_mma)
        << m.experts << " experts of 2 x " << m.n << " x " << m.k << ", " << m.rows << " rows, bound " << m.bound;
  }

  // Down projections at one token: Qwen3-30B-A3B (8 of 128 experts, 2048 x 768); Mixtral-8x7B (2 of
  // 8, 4096 x 14336: 235 MB in 64 tiles); at 3 tokens (6 experts, 192 tiles) a bound of 3 rows is
  // too many; DeepSeek-V3 (8 of 256, 7168 x 2048: 235 MB in 448 tiles, 0.85 of the SMs, but down
  // rows run on the singles, where the short-wave rule does not reach).
  GroupedGemmArgs down;
  down.gemm.M = 8;
  down.gemm.N = 2048;
  down.gemm.K = 768;
  down.experts = 128;
  down.max_expert_rows = 1;
  EXPECT_EQ(schedule_of(down), Schedule::kWarpMma);
  down.gemm.M = 2;
  down.gemm.N = 4096;
  down.gemm.K = 14336;
  down.experts = 8;
  EXPECT_EQ(schedule_of(down), Schedule::kWarpMma);
  down.gemm.M = 6;
  down.max_expert_rows = 3;
  EXPECT_NE(schedule_of(down), Schedule::kWarpMma);
  down.gemm.M = 8;
  down.max_expert_rows = 1;
  down.gemm.N = 7168;
  down.gemm.K = 2048;
  down.experts = 256;
  EXPECT_NE(schedule_of(down), Schedule::kWarpMma);
  // More experts that can have rows than the grid's y holds (65535), however small.
  down.gemm.M = down.experts = 70000;
  down.gemm.N = down.gemm.K = 16;
  EXPECT_NE(schedule_of(down), Schedule::kWarpMma);
  down.gemm.M = down.experts = 65535;
  EXPECT_EQ(schedule_of(down), Schedule::kWarpMma);
}

// Each launch's load as the setup kernel sums it (grouped_setup.cuh): under the rule, where a wide
// tier whose tiles would not fill the SMs once gives its experts to the unswapped tier, and with
// every expert on each tier.
struct Loads {
  detail::TierLoad by_rule[detail::GroupTiers::kMax] = {}, all_on[detail::GroupTiers::kMax] = {};
};
Loads loads_of(const detail::GroupTiers& tiers, const std::vector<int>& rows, std::int64_t weight_rows, int sm_count) {
  std::int64_t rule_tiles[detail::GroupTiers::kMax] = {};
  for (int r : rows) {
    if (r > 0) rule_tiles[tiers.tier_of(r)] += tiers.token_tiles(tiers.tier_of(r), r);
  }
  Loads loads;
  const int first_padded = tiers.few_rows_max > 0 ? 1 : 0;
  for (int r : rows) {
    if (r == 0) continue;
    int t = tiers.tier_of(r);
    if (t > first_padded && rule_tiles[t] * ((weight_rows + 127) / 128) < sm_count) t = first_padded;
    loads.by_rule[t].token_tiles += tiers.token_tiles(t, r);
    loads.by_rule[t].experts += 1;
    loads.by_rule[t].rows += r;
    for (int u = 0; u < tiers.count; ++u) {
      loads.all_on[u].token_tiles += tiers.token_tiles(u, r);
      loads.all_on[u].experts += 1;
      loads.all_on[u].rows += r;
    }
  }
  return loads;
}

// The grouped GEMM's setup kernel runs every expert on one launch where the launch model times it
// at least 8 % below the rule's launches (the down projection's long K makes each launch's last
// wave dear); the gated MLP keeps its rule. Rows per expert from epifuse-grouped-probe's routings
// (bench/results/moe/down-launch-model/), with the kernel the probe timed fastest there.
TEST(GroupedHeuristics, TheGroupedGemmTakesOneLaunchWhereTheModelTimesItFaster) {
  std::vector<detail::GroupedLaunch> launches;
  ASSERT_TRUE(detail::select(valid_args(), h200(), detail::kernel_table(), &launches).ok());
  EXPECT_FALSE(launches[0].tiers.model.on) << "the gated MLP";

  // Mixtral-8x7B's down projection: 8 experts of 4096 x 14336, moe_mlp's bound of T rows.
  GroupedGemmArgs down;
  down.gemm.M = 2048;
  down.gemm.N = 4096;
  down.gemm.K = 14336;
  down.experts = 8;
  down.max_expert_rows = 1024;
  ASSERT_TRUE(detail::select(down, h200(), detail::kernel_table(), &launches).ok());
  const detail::GroupTiers& tiers = launches[0].tiers;
  ASSERT_EQ(tiers.count, 4);
  EXPECT_TRUE(tiers.model.on);
  auto one_launch = [&](const std::vector<int>& rows) {
    const Loads l = loads_of(tiers, rows, down.gemm.N, 132);
    return tiers.one_launch_tier(l.by_rule, l.all_on, down.gemm.N, down.gemm.K, 2, 132);
  };
  constexpr int kUnswapped = 1, kWide160 = 2, kWide208 = 3;
  EXPECT_EQ(tiers.tile_rows[kWide160], 160);
  EXPECT_EQ(tiers.tile_rows[kWide208], 208);
  // Two hot experts of 256 rows: the rule's two unswapped tiles per expert fill half the SMs
  // (190.6 µs dispatched, 123.1 on the 128x160 kernel alone).
  EXPECT_EQ(one_launch({256, 256, 0, 0, 0, 0, 0, 0}), kWide160);
  // Zipf 1024 (618.1 µs, 490.9 on the 128x160 kernel) and 4096 (1786.3, 1520.0 on it).
  EXPECT_EQ(one_launch({717, 428, 262, 171, 145, 134, 97, 94}), kWide160);
  EXPECT_EQ(one_launch({1056, 1064, 1019, 959, 1024, 1015, 1015, 1040}), kWide160);
  // About 64 rows each (332.0 µs, 252.6 unswapped).
  EXPECT_EQ(one_launch({77, 59, 63, 57, 59, 67, 64, 66}), kUnswapped);
  // Uniform 1024, where the rule's split was the fastest (423.7 µs; 461.5 on the 128x160 kernel).
  EXPECT_EQ(one_launch({273, 263, 245, 283, 236, 243, 267, 238}), -1);
  // The rule's one launch already: nothing to save.
  EXPECT_EQ(one_launch({1024, 1024, 0, 0, 0, 0, 0, 0}), -1);
}

}  // namespace
}  // namespace epifuse

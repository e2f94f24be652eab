// The generated kernel table and name(KernelKey), CPU only: every row is a kernel the families can
// build, names are distinct and say what the key says.
#include <set>
#include <string>

#include <gtest/gtest.h>

#include "dispatch/kernel_table.hpp"
#include "epifuse/kernel_key.hpp"

namespace epifuse {
namespace {

TEST(KernelTable, HasRowsOfEveryOp) {
  int gemm = 0, gated = 0;
  for (const KernelKey& k : detail::kernel_table()) {
    gemm += k.op == Op::kGemm;
    gated += k.op == Op::kGatedMlp;
  }
  EXPECT_GT(gemm, 0);
  EXPECT_GT(gated, 0);
}

TEST(KernelTable, NamesAreDistinct) {
  std::set<std::string> names;
  for (const KernelKey& k : detail::kernel_table()) {
    EXPECT_TRUE(names.insert(name(k)).second) << "two rows named " << name(k);
    EXPECT_EQ(name(k).rfind("sm90_", 0), 0u) << name(k);
  }
}

// The rules the kernel families static_assert, checked on the table without compiling one.
TEST(KernelTable, RowsAreBuildable) {
  for (const KernelKey& k : detail::kernel_table()) {
    const std::string n = name(k);
    EXPECT_GT(k.tile.m * k.tile.n * k.tile.k, 0) << n;
    EXPECT_TRUE(k.schedule != Schedule::kCooperative || k.tile.m >= 128) << n << ": cooperative needs tile M >= 128";
    if (k.schedule == Schedule::kWarpMma) {  // the static_asserts of the warp-mma families
      const EpilogueCoverage gemm_epilogue =
          k.grouping == Grouping::kGrouped ? EpilogueCoverage::kCastOnly : EpilogueCoverage::kBiasActivation;
      EXPECT_TRUE(k.op == Op::kGatedMlp || (k.epilogue == gemm_epilogue && !k.has_c)) << n;
      const bool two_token_tiles = k.op == Op::kGemm && k.grouping == Grouping::kNone && k.tile.n == 16;
      EXPECT_TRUE(k.swap_ab && k.tile.m == 16 && (k.tile.n == 8 || two_token_tiles) && k.tile.k == 64) << n;
      EXPECT_EQ(k.d, k.a) << n;
    }
    EXPECT_EQ(k.a, k.b) << n;
    if (k.grouping == Grouping::kGrouped) {  // the static_asserts of the grouped families
      EXPECT_TRUE(k.op == Op::kGatedMlp || k.epilogue == EpilogueCoverage::kCastOnly) << n;
      EXPECT_FALSE(k.has_c) << n;
      EXPECT_EQ(k.decomposition, Decomposition::kDataParallel) << n;
    }
    if (k.op == Op::kGatedMlp) {
      EXPECT_EQ(k.d, k.a) << n;
      EXPECT_EQ(k.epilogue, EpilogueCoverage::kGatedPair) << n;
      EXPECT_FALSE(k.has_c) << n;
    } else {
      EXPECT_NE(k.epilogue, EpilogueCoverage::kGatedPair) << n;
    }
  }
}

KernelKey base() {
  KernelKey k;
  k.tile = {128, 256, 64};
  k.cluster = {2, 1};
  k.has_c = true;
  return k;
}

TEST(KernelName, SaysWhatTheKeySays) {
  EXPECT_EQ(name(base()), "sm90_gemm_bf16_bf16_coop_128x256x64_c2x1");
  KernelKey k = base();
  k.epilogue = EpilogueCoverage::kCastOnly;
  k.has_c = false;
  EXPECT_EQ(name(k), "sm90_gemm_bf16_bf16_coop_128x256x64_c2x1_cast_noc");
  k = base();
  k.d = DType::kFP32;
  k.swap_ab = true;
  EXPECT_EQ(name(k), "sm90_gemm_bf16_fp32_swap_coop_128x256x64_c2x1");
  k = base();
  k.a = DType::kFP8E4M3;
  k.b = DType::kFP8E5M2;
  EXPECT_EQ(name(k), "sm90_gemm_e4m3xe5m2_bf16_coop_128x256x64_c2x1");
  k = base();
  k.decomposition = Decomposition::kStreamK;
  EXPECT_EQ(name(k), "sm90_gemm_bf16_bf16_coop_128x256x64_c2x1_streamk");
  k = base();
  k.op = Op::kGatedMlp;
  k.schedule = Schedule::kPingpong;
  k.epilogue = EpilogueCoverage::kGatedPair;
  k.has_c = false;
  EXPECT_EQ(name(k), "sm90_gated_mlp_bf16_bf16_pingpong_128x256x64_c2x1");
  EXPECT_EQ(to_string(KernelChoice{k, RasterOrder::kAlongN, 4}),
            "sm90_gated_mlp_bf16_bf16_pingpong_128x256x64_c2x1 raster=along_n swizzle=4");
  EXPECT_EQ(to_string(KernelChoice{k, RasterOrder::kHeuristic, 1, 4}), "sm90_gated_mlp_bf16_bf16_pingpong_128x256x64_c2x1 splits=4");
  EXPECT_EQ(to_string(KernelChoice{k, RasterOrder::kHeuristic, 1, 1, StreamKMode::kShareTail}),
            "sm90_gated_mlp_bf16_bf16_pingpong_128x256x64_c2x1 stream_k=share_tail");
  k.schedule = Schedule::kWarpMma;
  k.tile = {16, 8, 64};
  k.cluster = {1, 1};
  k.swap_ab = true;
  EXPECT_EQ(name(k), "sm90_gated_mlp_bf16_bf16_swap_warpmma_16x8x64_c1x1");
  k.schedule = Schedule::kCooperative;
  k.tile = {128, 32, 128};
  k.grouping = Grouping::kGrouped;
  EXPECT_EQ(name(k), "sm90_gated_mlp_bf16_bf16_swap_coop_128x32x128_c1x1_grouped");
}

// Changing any one field of a key changes its name.
TEST(KernelName, EveryFieldShowsInTheName) {
  const KernelKey k0 = base();
  const auto differs = [&](auto change, const char* field) {
    KernelKey k = k0;
    change(k);
    EXPECT_NE(name(k), name(k0)) << field;
    EXPECT_FALSE(k == k0) << field;
  };
  differs([](KernelKey& k) { k.op = Op::kGatedMlp; }, "op");
  differs([](KernelKey& k) { k.a = DType::kFP16; }, "a");
  differs([](KernelKey& k) { k.b = DType::kFP16; }, "b");
  differs([](KernelKey& k) { k.d = DType::kFP32; }, "d");
  differs([](KernelKey& k) { k.schedule = Schedule::kPingpong; }, "schedule");
  differs([](KernelKey& k) { k.schedule = Schedule::kWarpMma; }, "schedule (warp_mma)");
  differs([](KernelKey& k) { k.tile.m = 64; }, "tile.m");
  differs([](KernelKey& k) { k.tile.n = 128; }, "tile.n");
  differs([](KernelKey& k) { k.tile.k = 128; }, "tile.k");
  differs([](KernelKey& k) { k.cluster.m = 1; }, "cluster.m");
  differs([](KernelKey& k) { k.cluster.n = 2; }, "cluster.n");
  differs([](KernelKey& k) { k.swap_ab = true; }, "swap_ab");
  differs([](KernelKey& k) { k.epilogue = EpilogueCoverage::kBiasActivation; }, "epilogue");
  differs([](KernelKey& k) { k.has_c = false; }, "has_c");
  differs([](KernelKey& k) { k.grouping = Grouping::kGrouped; }, "grouping");
  // b == a == d written once each way round: bf16 x fp16 -> bf16 and bf16 -> fp16 are different names.
  KernelKey mixed = k0, narrow = k0;
  mixed.b = DType::kFP16;
  narrow.d = DType::kFP16;
  EXPECT_NE(name(mixed), name(narrow));
}

}  // namespace
}  // namespace epifuse

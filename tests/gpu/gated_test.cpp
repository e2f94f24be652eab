// The fused gated MLP against the fp64 reference: a shape grid, every activation with and without
// bias in bf16 and fp16, clamping, scale, strides, each compiled kernel forced, narrow weights
// delegated to cuBLASLt + act·mul, ±inf and NaN in the biases, bitwise determinism, x padded in
// the workspace or read in place, M = 0, rejected calls, 64-bit indexing past 2^31 outputs, and
// a Llama-style MLP block (gate/up → act → down) end to end.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <functional>
#include <optional>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "epifuse/tuning.hpp"
#include "reference/gated.hpp"
#include "reference/gemm.hpp"
#include "reference/numeric.hpp"
#include "tests/gpu/gpu_test.hpp"
#include "testing/accuracy.hpp"
#include "testing/gated_problem.hpp"
#include "testing/random.hpp"

namespace epifuse::testing {
namespace {

class GatedTest : public ::testing::TestWithParam<GatedCase> {
 protected:
  void SetUp() override { EPIFUSE_REQUIRE_HOPPER(); }
};

TEST_P(GatedTest, MatchesReference) { expect_gated_passes(GetParam()); }

constexpr GatedActivation kActivations[] = {GatedActivation::kSwiGLU, GatedActivation::kGeGLUTanh,
                                             GatedActivation::kGeGLUErf, GatedActivation::kReGLU};

std::vector<GatedCase> grid() {
  std::vector<GatedCase> cases;
  int i = 0;
  for (std::int64_t M : {1, 13, 200, 333}) {
    for (std::int64_t N : {1000, 14336}) {
      for (std::int64_t K : {520, 4096}) {
        GatedCase c{M, N, K};
        c.activation = kActivations[i % 4];
        c.bias = (i / 4) % 2 == 1;
        ++i;
        cases.push_back(c);
      }
    }
  }
  return cases;
}

std::vector<GatedCase> features() {
  std::vector<GatedCase> cases;
  for (GatedActivation a : kActivations) {
    for (bool bias : {false, true}) {
      for (std::int64_t M : {333, 13}) {  // the large-M and the swapped small-M kernels
        GatedCase c{M, 1000, 520};
        c.activation = a;
        c.bias = bias;
        cases.push_back(c);
      }
    }
  }
  // Narrow weights with a long K loop: delegated to cuBLASLt + act·mul (fp32 product, rounded
  // once), with every activation, bias, clamp, scale, strides and fp16; and the stream-K twins
  // that dispatch chose there before the delegation, forced.
  for (GatedActivation a : kActivations) {
    for (std::int64_t M : {3, 300}) cases.push_back({M, 640, 16384, DType::kBF16, a, M == 300});
  }
  for (DType t : {DType::kBF16, DType::kFP16}) cases.push_back({783, 256, 5184, t, GatedActivation::kSwiGLU, true});
  // Past 1023 tokens on few weight tiles: delegated within 2.5 waves of 128x128 tiles on an H200
  // (30 x 9 here), fused past them (30 x 12); an H100 delegates both (up to 8 waves).
  cases.push_back({1041, 1920, 3392, DType::kBF16, GatedActivation::kGeGLUErf, true});
  cases.push_back({1409, 1920, 3392, DType::kBF16, GatedActivation::kSwiGLU, false});
  GatedCase narrow{77, 448, 4096, DType::kBF16, GatedActivation::kSwiGLU, true};
  narrow.limit = 0.75f;
  narrow.scale = 0.3f;
  narrow.ldx_pad = 24;
  narrow.ldo_pad = 8;
  cases.push_back(narrow);
  for (const auto& [M, kernel] :
       {std::pair{3, "swap_coop_128x32x128_c1x1_streamk"}, {300, "swap_coop_128x128x64_c1x1_streamk"}}) {
    GatedCase forced{M, 640, 16384, DType::kBF16, GatedActivation::kSwiGLU, true};
    forced.kernel = std::string("sm90_gated_mlp_bf16_bf16_") + kernel;
    cases.push_back(forced);
  }
  // One, two or five 144- to 224-token tiles as dispatch picks them (partial last tile): whole tiles
  // within one wave (2N / 128 = 112 weight tiles, where the wave model agrees with the rules: one of
  // 144, 176 or 208, two of 144; two of 224 on 128 tiles), stream-K past it (148 tiles); five tiles
  // stream-K below a full last wave (112 weight tiles), whole tiles at a full one (132).
  for (const auto& [M, N] : {std::pair{141, 7168}, {149, 9472}, {160, 7168}, {170, 7168}, {197, 7168}, {224, 9472},
                             {270, 7168}, {401, 8192}, {433, 9472}, {785, 7168}, {790, 8448}}) {
    cases.push_back({M, N, 1024, DType::kBF16, kActivations[M % 4], true});
  }
  // 129-448 tokens with K < 1792 on at most 127 weight tiles: the wave model's kernel as dispatch
  // picks it (2N / 128 = 20 weight tiles: thirteen swapped 128x32 token tiles, the last partial;
  // 58 weight tiles: the 96-token pair; 29: unswapped 128-row tiles, the last one partial; 50: two
  // 224-token tiles in one wave, where the unswapped pingpong's would take 1.5).
  for (const auto& [M, N, K] :
       {std::tuple{396, 1280, 1280}, {148, 3712, 1600}, {433, 1856, 448}, {421, 3200, 1152}}) {
    cases.push_back({M, N, K, DType::kBF16, kActivations[M % 4], true});
  }
  // 449-1024 tokens with K >= 16384: the wave model's kernel as dispatch picks it (130 and 148
  // weight tiles: three 176-token tiles, the last partial; the 160-token stream-K kernel).
  cases.push_back({500, 8320, 16384, DType::kBF16, kActivations[1], true});
  cases.push_back({470, 9472, 16448, DType::kBF16, kActivations[0], false});
  // 129-1024 tokens with K under 1024 on wider weights: the wave model's kernel as dispatch picks it
  // (2N / 128 = 154 weight tiles: the unswapped pingpong, the last token tile partial; 232: the
  // 96-token pair).
  cases.push_back({200, 9856, 384, DType::kBF16, kActivations[2], true});
  cases.push_back({161, 14848, 320, DType::kBF16, kActivations[1], false});
  // Past 3.4 waves of weight tiles (2N / 128 = 450): two 144-token tiles, and at 289-320 tokens with
  // K under 2048 the 96-token pair; past 1024 tokens a tie of the swapped and unswapped 128-token
  // tilings with K under 1024 (the unswapped pingpong); as dispatch picks them.
  cases.push_back({270, 28800, 256, DType::kBF16, kActivations[1], true});
  cases.push_back({300, 28800, 1024, DType::kBF16, kActivations[3], false});
  cases.push_back({1200, 8192, 320, DType::kBF16, kActivations[2], true});
  // 129-144 tokens past 3.4 waves with K >= 8192: the 160-token stream-K kernel sharing its tail
  // past one wave (450 weight tiles, the last of four waves 41 % full).
  cases.push_back({131, 28800, 8192, DType::kBF16, kActivations[0], true});
  // On an H100, 1025-4096 tokens with K of 2048-5119 and a partial 128-row tile: the swapped 160- or
  // 224-token tiles, whichever computes fewer rows, as dispatch picks them (160 as the pingpong
  // 128x160; an H200 takes 1100 tokens by that kernel's own rule).
  cases.push_back({1100, 8320, 2048, DType::kBF16, kActivations[3], true});
  cases.push_back({1300, 8320, 2112, DType::kBF16, kActivations[2], false});
  // 257-4096 tokens with K of 2048-8192 on more than 127 weight tiles: the swapped pingpong 128x160
  // 2x1 where 160-token tiles compute fewer rows, or as many (off HBM3 with K under 5120), as dispatch
  // picks it (two tiles; six, the last partial; seven, x padded to 1120 rows; the 1100-token case
  // above is one too, and on an H100 its 160-token tiles are these).
  cases.push_back({300, 8320, 2048, DType::kBF16, kActivations[2], true});
  cases.push_back({944, 8320, 2112, DType::kBF16, kActivations[1], false});
  cases.push_back({1025, 8320, 2048, DType::kBF16, kActivations[0], true});
  // Off HBM3 with K >= 2048, the swapped pingpong 128x112 2x1 as dispatch picks it: one partial
  // 112-token tile at 101 tokens past one wave of weight tiles (2N / 128 = 140); and forced, two
  // tiles at 215 tokens (450 weight tiles).
  cases.push_back({101, 8960, 2048, DType::kBF16, kActivations[3], true});
  GatedCase two112{215, 28800, 2112, DType::kBF16, kActivations[0], false};
  two112.kernel = "sm90_gated_mlp_bf16_bf16_swap_pingpong_128x112x64_c2x1";
  cases.push_back(two112);
  // On an H100, up to 2304 tokens where that pingpong stays (the swapped tiles would compute more
  // rows): the cooperative 128x256 1x2, as dispatch picks it.
  cases.push_back({1400, 8320, 2048, DType::kBF16, kActivations[0], true});
  cases.push_back({1500, 8320, 2112, DType::kBF16, kActivations[1], false});
  // Decode past one wave of swapped 128x32 tiles (148 weight tiles, K 2048): the stream-K twin as
  // dispatch picks it (one and two token tiles, a partial last one), whole tiles where the last wave
  // is half full (2N / 128 = 232; on an H200 16-token ones at 5 tokens).
  for (const auto& [M, N] : {std::pair{1, 9472}, {29, 9472}, {37, 9472}, {5, 14848}}) {
    cases.push_back({M, N, 2048, DType::kBF16, kActivations[M % 4], M != 29});
  }
  // Past one wave with the last at least half full and K >= 8192 (2N / 128 = 199 and 336 tiles):
  // on an H200 the stream-K twin sharing the last two waves' K loops (share-tail mode), as dispatch
  // picks it.
  cases.push_back({5, 12736, 8192, DType::kBF16, kActivations[1], true});
  cases.push_back({2, 21504, 8256, DType::kBF16, kActivations[2], false});
  // Up to 8 tokens with K < 16384 where the packed weight's blocks of 16 rows fit one wave of the
  // warp-mma kernel's singles (528 on 132 SMs): on an H200 that kernel as dispatch picks it (320
  // and 528 blocks; 296 blocks with K 9984, where the 128x32 stream-K twin ran; in 4 K-loop shares
  // on 48 blocks, where cuBLASLt + act·mul ran), the 128x16 kernel just past (529).
  cases.push_back({3, 2560, 4480, DType::kBF16, kActivations[3], true});
  cases.push_back({8, 4224, 2496, DType::kBF16, kActivations[0], false});
  cases.push_back({7, 2368, 9984, DType::kBF16, kActivations[2], true});
  cases.push_back({2, 384, 9216, DType::kBF16, kActivations[1], false});
  cases.push_back({5, 4232, 2496, DType::kBF16, kActivations[1], true});
  // Up to 16 tokens where the swapped 128x32 would run whole tiles: on an H200 the swapped 128x16 as
  // dispatch picks it (one full 16-token tile; 11 tokens clamped and scaled, x and out strided).
  cases.push_back({16, 4232, 2496, DType::kBF16, kActivations[2], true});
  GatedCase sixteen{11, 9472, 1152, DType::kBF16, kActivations[3], true};
  sixteen.limit = 0.75f;
  sixteen.scale = 0.3f;
  sixteen.ldx_pad = 24;
  sixteen.ldo_pad = 8;
  cases.push_back(sixteen);
  // One 128-token tile past one wave of weight tiles with a short last wave (2N / 128 = 146, a last
  // wave of 14): the swapped 128x128 stream-K as dispatch picks it (a partial tile), and whole
  // pingpong tiles at K < 4096; at 65 tokens one 80-token tile.
  for (const auto& [M, K] : {std::pair{101, 4096}, {65, 4096}, {127, 4032}}) {
    cases.push_back({M, 9344, K, DType::kBF16, kActivations[M % 4], M != 65});
  }
  // 65-96 tokens: one 80- or 96-token tile as dispatch picks it (partial tiles; 2N / 128 = 90, 128,
  // and 89 weight tiles, an odd count the 2x1 cluster pads).
  for (const auto& [M, N, K, activation] : {std::tuple{77, 5760, 1152, 0}, {89, 8192, 2048, 2}, {93, 5696, 1088, 3}}) {
    cases.push_back({M, N, K, DType::kBF16, kActivations[activation], M != 89});
  }
  GatedCase clamped{333, 1000, 520};
  clamped.limit = 0.75f;  // well inside the unit-variance gate and up: clamps often
  cases.push_back(clamped);
  clamped.M = 13;
  clamped.bias = true;
  cases.push_back(clamped);
  clamped.M = 5;  // the warp-mma kernel on an H200, scaled too
  clamped.scale = 0.3f;
  cases.push_back(clamped);
  GatedCase scaled{200, 1000, 520};
  scaled.scale = 0.3f;
  cases.push_back(scaled);
  GatedCase strided{333, 1000, 520};
  strided.ldx_pad = 24;
  strided.ldo_pad = 8;
  cases.push_back(strided);
  strided.M = 7;
  cases.push_back(strided);
  for (GatedActivation a : kActivations) {  // fp16: every activation, both kernel classes
    for (std::int64_t M : {1, 333}) cases.push_back({M, 1000, 520, DType::kFP16, a, true});
  }
  for (const KernelKey& k : compiled_kernels(Op::kGatedMlp)) {
    if (k.grouping != Grouping::kNone) continue;  // grouped_gated_test.cpp
    GatedCase forced{333, 1000, 520, k.a, GatedActivation::kSwiGLU, true};
    forced.kernel = name(k);
    if (k.schedule == Schedule::kWarpMma) {  // up to 8 tokens; the singles, and the wide with and without a cluster
      for (const auto& [M, N, K, splits] : {std::tuple{1, 1000, 520, 1}, {8, 1000, 520, 2}, {5, 8192, 2048, 1},
                                            {7, 28672, 1032, 1}, {8, 512, 29952, 8}, {3, 1000, 4096, 4},
                                            {2, 1000, 8200, 1}}) {
        forced.M = M, forced.N = N, forced.K = K, forced.splits = splits;
        cases.push_back(forced);
      }
      continue;
    }
    cases.push_back(forced);
    forced.M = 1;
    cases.push_back(forced);
    forced.M = 200;  // x padded in the workspace
    cases.push_back(forced);
    if (k.decomposition == Decomposition::kStreamK) {
      // The share-tail mode (CUTLASS's StreamK) over one wave of 64-96 tiles of 128 weight rows
      // (the heuristic mode runs 66 or more whole) and, for 32-token tiles, past two waves.
      GatedCase share_tail{701, 1000, 4096, k.a, GatedActivation::kSwiGLU, true};
      share_tail.kernel = name(k);
      share_tail.stream_k = StreamKMode::kShareTail;
      cases.push_back(share_tail);
    }
  }
  // ±inf and NaN in the gate bias (columns 0-2) and the up bias (3-5): relu(−inf)·u = 0, never 0·inf.
  for (GatedActivation a : kActivations) {
    for (std::int64_t M : {5, 13, 333}) {
      for (std::int64_t K : {520, 4096}) {  // 320 x 4096: delegated, but at 5 tokens on an H200 the warp-mma kernel
        GatedCase special{M, K == 520 ? 1000 : 320, K, DType::kBF16, a, true};
        special.special_values = true;
        cases.push_back(special);
      }
    }
  }
  return cases;
}

INSTANTIATE_TEST_SUITE_P(Grid, GatedTest, ::testing::ValuesIn(grid()), param_name<GatedCase>);
INSTANTIATE_TEST_SUITE_P(Features, GatedTest, ::testing::ValuesIn(features()), param_name<GatedCase>);

// The rule's paths, as dispatch picks them: the first launch of a shape would otherwise time the
// fused kernel against the delegated path and keep the faster (gated_path_test.cpp tests that).
class GatedBehavior : public ::testing::Test {
 protected:
  void SetUp() override {
    EPIFUSE_REQUIRE_HOPPER();
    set_delegated_tuning(false);
  }
  void TearDown() override { set_delegated_tuning(true); }
};

// Also the warp-mma kernel in 2 K-loop shares (5 x 320 x 4096 on an H200), whose cluster sums its
// partials in a fixed order.
TEST_F(GatedBehavior, TwoRunsAreBitwiseEqual) {
  for (const auto& [M, N] : {std::pair<std::int64_t, std::int64_t>{13, 14336}, {2048, 14336}, {5, 320}}) {
    GatedCase c{M, N, 4096, DType::kBF16, GatedActivation::kSwiGLU, true};
    GatedProblem p(c, case_seed(c.name()));
    std::vector<std::vector<std::uint8_t>> runs;
    for (int run = 0; run < 2; ++run) {
      p.poison_output();
      ASSERT_TRUE(gated_mlp(p.args(), nullptr).ok());
      EPIFUSE_CHECK_CUDA(cudaDeviceSynchronize());
      runs.push_back(p.out().download());
    }
    EXPECT_EQ(runs[0], runs[1]) << "M = " << M;
  }
}

// With a workspace the kernel reads a zero-padded copy of x; without one, x in place (its last
// token tile's TMA boxes then run past x's last row). Same kernel, same valid rows: bitwise equal.
TEST_F(GatedBehavior, PaddedAndInPlaceTokenReadsAgree) {
  // Dispatch pads x at 1025 tokens of the 8320-row weight (seven 160-token tiles) and 336 of the
  // 10688-row one (the 96-token pair); 581 x 320 x 320 is too small a call to pay for the copy, 380
  // tokens fill their last 96-token tile but for 4 rows, and 96 tokens of the 14336-row weight fill one
  // 96-token tile. None of these is delegated.
  const struct {
    std::int64_t M, N, K;
    bool padded;
  } cases[] = {{13, 4096, 4096, false}, {581, 320, 320, false}, {96, 14336, 4096, false},
               {1025, 8320, 2048, true}, {336, 10688, 3392, true}, {380, 8320, 2048, false}};
  for (const auto& [M, N, K, padded] : cases) {
    GatedCase c{M, N, K, DType::kBF16, GatedActivation::kSwiGLU, true};
    GatedProblem p(c, case_seed(c.name()));
    EXPECT_EQ(p.args().workspace_bytes >= static_cast<std::size_t>(M * K * 2), padded) << c.name();
    std::vector<std::vector<std::uint8_t>> outputs;
    for (bool with_workspace : {true, false}) {
      if (!with_workspace) p.drop_workspace();
      const GatedReport r = run_and_check_gated(p);
      EXPECT_TRUE(r.passed) << c.name() << (with_workspace ? " with its workspace: " : " without: ") << r.text;
      outputs.push_back(p.out().download());
    }
    EXPECT_EQ(outputs[0], outputs[1]) << c.name();
  }
}

// Narrow weights with a long K run cuBLASLt + act·mul when the workspace holds the fp32 product;
// forced, or without that workspace, a fused kernel. All three match the reference.
TEST_F(GatedBehavior, NarrowLongKCallsAreDelegatedUnlessForcedOrShortOfWorkspace) {
  GatedCase c{783, 256, 5184, DType::kBF16, GatedActivation::kSwiGLU, true};
  GatedProblem p(c, case_seed(c.name()));
  std::optional<KernelChoice> choice;
  bool delegated = false;
  ASSERT_TRUE(selected_kernel(p.args(), nullptr, &choice, &delegated).ok());
  EXPECT_TRUE(delegated);
  ASSERT_TRUE(choice.has_value());
  EXPECT_GE(p.args().workspace_bytes, static_cast<std::size_t>(c.M * 2 * c.N) * sizeof(float));
  GatedReport r = run_and_check_gated(p);
  EXPECT_TRUE(r.passed) << "delegated: " << r.text;

  GatedCase forced = c;
  forced.kernel = name(choice->key);
  GatedProblem q(forced, case_seed(c.name()));
  ASSERT_TRUE(selected_kernel(q.args(), nullptr, &choice, &delegated).ok());
  EXPECT_FALSE(delegated) << "a forced kernel is never delegated";
  r = run_and_check_gated(q);
  EXPECT_TRUE(r.passed) << "forced " << forced.kernel << ": " << r.text;

  p.drop_workspace();
  ASSERT_TRUE(selected_kernel(p.args(), nullptr, &choice, &delegated).ok());
  EXPECT_FALSE(delegated) << "no workspace for the product";
  r = run_and_check_gated(p);
  EXPECT_TRUE(r.passed) << "without workspace: " << r.text;
}

TEST_F(GatedBehavior, EmptyBatchIsANoOp) {
  GatedCase c{4, 1000, 520};
  GatedProblem p(c, case_seed(c.name()));
  p.poison_output();
  GatedMlpArgs args = p.args();
  args.M = 0;
  ASSERT_TRUE(gated_mlp(args, nullptr).ok());
  EPIFUSE_CHECK_CUDA(cudaDeviceSynchronize());
  for (std::uint8_t b : p.out().download()) ASSERT_EQ(b, kPoisonByte);
}

TEST_F(GatedBehavior, RejectedCallsLeaveTheOutputUntouched) {
  GatedCase c{64, 1000, 520};
  GatedProblem p(c, case_seed(c.name()));
  p.poison_output();
  GatedMlpArgs wrong_tag = p.args();
  wrong_tag.w.layout = GateUpLayout::kUnpacked;
  GatedMlpArgs wrong_n = p.args();
  wrong_n.N = 992;  // the caller's output width disagrees with the packed weight
  GatedMlpArgs misaligned = p.args();
  misaligned.out = static_cast<char*>(p.args().out) + 2;
  GatedMlpArgs wrong_kernel = p.args();
  wrong_kernel.kernel = KernelChoice{compiled_kernels(Op::kGemm).front()};
  expect_rejected(gated_mlp(wrong_tag, nullptr), StatusCode::kInvalidArgument, "is not kGateUpBlocks8");
  expect_rejected(gated_mlp(misaligned, nullptr), StatusCode::kInvalidArgument, "out must be 16-byte aligned");
  expect_rejected(gated_mlp(wrong_n, nullptr), StatusCode::kInvalidArgument, "does not match the packed weight's N");
  expect_rejected(gated_mlp(wrong_kernel, nullptr), StatusCode::kInvalidArgument, "is a gemm kernel");
  EPIFUSE_CHECK_CUDA(cudaDeviceSynchronize());
  for (std::uint8_t b : p.out().download()) ASSERT_EQ(b, kPoisonByte);
}

// A NaN in x reaches the output of its row with and without the clamp (the clamp must not turn
// NaN into the limit), and the other rows stay finite.
TEST_F(GatedBehavior, NaNInputPropagatesThroughTheClamp) {
  for (const auto& [limit, K] : {std::pair{0.0f, 520}, {0.75f, 520}, {0.75f, 4096}}) {  // K = 4096: delegated
    GatedCase c{40, K == 520 ? 1000 : 320, K};
    c.limit = limit;
    GatedProblem p(c, case_seed(c.name()));
    const std::uint16_t nan_bits = 0x7FC0;  // bf16 quiet NaN
    EPIFUSE_CHECK_CUDA(cudaMemcpy(const_cast<void*>(p.args().x), &nan_bits, sizeof nan_bits, cudaMemcpyHostToDevice));
    p.poison_output();
    ASSERT_TRUE(gated_mlp(p.args(), nullptr).ok());
    EPIFUSE_CHECK_CUDA(cudaDeviceSynchronize());
    const std::vector<std::uint8_t> out = p.out().download();
    std::int64_t nan_in_row0 = 0, nonfinite_elsewhere = 0;
    for (std::int64_t m = 0; m < c.M; ++m) {
      for (std::int64_t n = 0; n < c.N; ++n) {
        const bool finite = std::isfinite(reference::load_as_float(out.data(), DType::kBF16, m * c.N + n));
        if (m == 0) nan_in_row0 += !finite;
        else nonfinite_elsewhere += !finite;
      }
    }
    EXPECT_EQ(nan_in_row0, c.N) << "limit " << limit;
    EXPECT_EQ(nonfinite_elsewhere, 0) << "limit " << limit;
  }
}

// The device pack matches the host pack byte for byte (both checkpoint orders), and the device
// unpack returns the original weights and biases.
TEST_F(GatedBehavior, DevicePackingMatchesHostAndRoundTrips) {
  const std::int64_t N = 200, K = 264, ld = 272;
  const std::size_t fused_bytes = static_cast<std::size_t>(2 * N * ld) * 2;
  DeviceBuffer fused(fused_bytes), fused_bias(2 * N * sizeof(float));
  const std::uint64_t seed = derive_seed(run_seed(), 77);
  fill_uniform(fused.data(), DType::kBF16, 2 * N, ld, ld, seed, -1.0f, 1.0f);
  fill_uniform(fused_bias.data(), DType::kFP32, 1, 2 * N, 2 * N, derive_seed(seed, 1), -1.0f, 1.0f);
  const std::vector<std::uint8_t> host_fused = fused.download();
  std::vector<float> host_bias(2 * N);
  EPIFUSE_CHECK_CUDA(cudaMemcpy(host_bias.data(), fused_bias.data(), host_bias.size() * sizeof(float), cudaMemcpyDeviceToHost));

  for (FusedGateUpOrder order : {FusedGateUpOrder::kGateThenUp, FusedGateUpOrder::kUpThenGate}) {
    DeviceBuffer packed(static_cast<std::size_t>(2 * N * K) * 2), packed_bias(2 * N * sizeof(float));
    PackedGateUp on_device, on_host;
    ASSERT_TRUE(pack_gate_up(gate_up_from_fused(fused.data(), fused_bias.as<float>(), N, K, ld, DType::kBF16, order),
                             packed.data(), packed_bias.as<float>(), &on_device, nullptr).ok());
    std::vector<std::uint8_t> host_packed(static_cast<std::size_t>(2 * N * K) * 2);
    std::vector<float> host_packed_bias(2 * N);
    ASSERT_TRUE(pack_gate_up_host(gate_up_from_fused(host_fused.data(), host_bias.data(), N, K, ld, DType::kBF16, order),
                                  host_packed.data(), host_packed_bias.data(), &on_host).ok());
    EPIFUSE_CHECK_CUDA(cudaDeviceSynchronize());
    std::vector<std::uint8_t> device_packed = packed.download();
    device_packed.resize(host_packed.size());
    EXPECT_EQ(device_packed, host_packed);
    std::vector<float> device_packed_bias(2 * N);
    EPIFUSE_CHECK_CUDA(cudaMemcpy(device_packed_bias.data(), packed_bias.data(), 2 * N * sizeof(float), cudaMemcpyDeviceToHost));
    EXPECT_EQ(device_packed_bias, host_packed_bias);

    DeviceBuffer gate(static_cast<std::size_t>(N * K) * 2), up(static_cast<std::size_t>(N * K) * 2);
    DeviceBuffer gate_bias(N * sizeof(float)), up_bias(N * sizeof(float));
    ASSERT_TRUE(unpack_gate_up(on_device, gate.data(), up.data(), gate_bias.as<float>(), up_bias.as<float>(), nullptr).ok());
    EPIFUSE_CHECK_CUDA(cudaDeviceSynchronize());
    const std::vector<std::uint8_t> g = gate.download(), u = up.download();
    const bool gate_first = order == FusedGateUpOrder::kGateThenUp;
    for (std::int64_t n = 0; n < N; ++n) {
      const std::size_t gate_row = static_cast<std::size_t>((gate_first ? n : N + n) * ld) * 2;
      const std::size_t up_row = static_cast<std::size_t>((gate_first ? N + n : n) * ld) * 2;
      ASSERT_TRUE(std::equal(g.begin() + n * K * 2, g.begin() + (n + 1) * K * 2, host_fused.begin() + gate_row)) << n;
      ASSERT_TRUE(std::equal(u.begin() + n * K * 2, u.begin() + (n + 1) * K * 2, host_fused.begin() + up_row)) << n;
    }
    std::vector<float> gb(N), ub(N);
    EPIFUSE_CHECK_CUDA(cudaMemcpy(gb.data(), gate_bias.data(), N * sizeof(float), cudaMemcpyDeviceToHost));
    EPIFUSE_CHECK_CUDA(cudaMemcpy(ub.data(), up_bias.data(), N * sizeof(float), cudaMemcpyDeviceToHost));
    for (std::int64_t n = 0; n < N; ++n) {
      EXPECT_EQ(gb[n], host_bias[gate_first ? n : N + n]);
      EXPECT_EQ(ub[n], host_bias[gate_first ? N + n : n]);
    }
  }
}

// A Llama-style MLP block: y = down(swiglu(x·Wgᵀ, x·Wuᵀ)), the fused gated kernel then
// epifuse::gemm for the down projection, against fp64 and against the unfused bf16 path.
TEST_F(GatedBehavior, LlamaStyleBlockMatchesFp64) {
  const std::int64_t M = 96, H = 1024, I = 2816;
  GatedCase c{M, I, H};
  GatedProblem p(c, case_seed(c.name()));
  const float down_scale = 3.0f / std::sqrt(static_cast<float>(I));
  DeviceBuffer down(static_cast<std::size_t>(H * I) * 2), y(static_cast<std::size_t>(M * H) * 2);
  fill_uniform(down.data(), DType::kBF16, H, I, I, derive_seed(p.seed(), 9), -down_scale, down_scale);
  p.poison_output();
  y.poison();
  ASSERT_TRUE(gated_mlp(p.args(), nullptr).ok());
  GemmArgs g;
  g.M = M;
  g.N = H;
  g.K = I;
  g.A = p.out().data();
  g.lda = I;
  g.B = down.data();
  g.ldb = I;
  g.D = y.data();
  g.ldd = H;
  ASSERT_TRUE(gemm(g, nullptr).ok());
  EPIFUSE_CHECK_CUDA(cudaDeviceSynchronize());

  auto to_float = [](const DeviceBuffer& b, std::size_t n) {
    const std::vector<std::uint8_t> bytes = b.download();
    std::vector<float> f(n);
    for (std::size_t i = 0; i < n; ++i) f[i] = reference::load_as_float(bytes.data(), DType::kBF16, static_cast<std::int64_t>(i));
    return f;
  };
  const std::vector<float> x = to_float(p.x(), M * H), wg = to_float(p.gate(), I * H), wu = to_float(p.up(), I * H);
  const std::vector<float> wd = to_float(down, H * I), got_f = to_float(y, M * H);
  reference::GatedOperands op;
  op.N = I;
  op.K = H;
  op.x = x.data();
  op.ldx = H;
  op.gate = wg.data();
  op.up = wu.data();
  std::vector<std::int64_t> rows(M);
  for (std::int64_t m = 0; m < M; ++m) rows[m] = m;
  const reference::GateUpValues v = reference::gate_up_rows(op, rows);
  const std::vector<double> h = reference::gated_rows(op, v);
  const std::vector<double> h_unfused = reference::unfused_gated_rows(op, DType::kBF16, v);
  auto down_proj = [&](const std::vector<double>& act, bool round_output) {
    std::vector<float> a(act.begin(), act.end());
    std::vector<double> out = reference::gemm_rows({M, H, I, a.data(), I, wd.data(), I}, rows);
    if (round_output) {
      for (double& o : out) o = reference::round_to(DType::kBF16, o);
    }
    return out;
  };
  const std::vector<double> ref = down_proj(h, false);
  const std::vector<double> unfused = down_proj(h_unfused, true);
  const std::vector<double> got(got_f.begin(), got_f.end());
  // Two ops, the gated output rounded to bf16 between them: the baseline rule for two roundings
  // (elementwise 2x; one rounding's ceiling failed at 0.00898 of 0.00781 on an H100, seed
  // 10284003367050902771, where y is small against the rounded terms it sums).
  const Accuracy ours = judge_baseline(got, ref, rel_l2(unfused, ref), DType::kBF16, 2.0);
  std::printf("[block] llama-style MLP %lldx%lldx%lld: fused path vs fp64 %s; unfused bf16 path rel_l2 %.3e\n",
              static_cast<long long>(M), static_cast<long long>(H), static_cast<long long>(I), ours.to_string().c_str(),
              rel_l2(unfused, ref));
  EXPECT_TRUE(ours.passed) << ours.failures();
}

// Past 2^31 outputs any 32-bit index arithmetic shows up in the last rows or columns: the large-M
// kernel (75000 × 28672) and the swapped small-M kernel (64 × (2^25 + 64); the packed weight is 8.6 GB).
// The warp-mma kernel (8 tokens, forced) indexes past 2^31 weight elements in the same weight.
TEST_F(GatedBehavior, IndexesPastTwoToThe31Outputs) {
  for (const auto& [M, N] : {std::pair<std::int64_t, std::int64_t>{75000, 28672}, {64, (1 << 25) + 64}, {8, (1 << 25) + 64}}) {
    GatedCase c{M, N, 64, DType::kBF16, GatedActivation::kSwiGLU, true};
    if (M == 8) c.kernel = "sm90_gated_mlp_bf16_bf16_swap_warpmma_16x8x64_c1x1";
    ASSERT_GT(std::max(c.M * c.N, 2 * c.N * c.K), std::int64_t{1} << 31);
    expect_gated_passes(c);
  }
}

}  // namespace
}  // namespace epifuse::testing

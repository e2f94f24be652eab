// Dispatch against the generated key table, CPU only: no kernel is compiled into this test.
// The kernel chosen per shape class, the rules for forcing one, and devices without kernels.
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "dispatch/kernel_table.hpp"
#include "dispatch/select.hpp"

namespace epifuse::detail {
namespace {

DeviceCaps hopper() {
  DeviceCaps c;
  c.cc_major = 9;
  c.cc_minor = 0;
  c.sm_count = 132;
  c.name = "NVIDIA H200";
  c.dram_gbps = 4915;  // HBM3e: 3201 MHz x 6144 bits, two transfers per clock
  return c;
}

// An H100 SXM: HBM3 at 2619 MHz x 5120 bits, two transfers per clock.
DeviceCaps h100() {
  DeviceCaps c = hopper();
  c.name = "NVIDIA H100 80GB HBM3";
  c.dram_gbps = 3352;
  return c;
}

GemmArgs shape(std::int64_t M, std::int64_t N, std::int64_t K, DType in = DType::kBF16, DType out = DType::kBF16) {
  GemmArgs a;
  a.M = M;
  a.N = N;
  a.K = K;
  a.a_dtype = a.b_dtype = in;
  a.d_dtype = out;
  return a;
}

template <class Args>
std::string chosen(const Args& a, const std::vector<KernelKey>& candidates = kernel_table()) {
  KernelChoice choice;
  const Status s = select(a, hopper(), candidates, &choice);
  return s.ok() ? name(choice.key) : s.to_string();
}

template <class Args>
std::string chosen_on(const DeviceCaps& caps, const Args& a) {
  KernelChoice choice;
  const Status s = select(a, caps, kernel_table(), &choice);
  return s.ok() ? name(choice.key) : s.to_string();
}

// The choice with its launch knobs, as to_string prints it (a stream-K mode, splits).
template <class Args>
std::string launched(const Args& a) {
  KernelChoice choice;
  const Status s = select(a, hopper(), kernel_table(), &choice);
  return s.ok() ? to_string(choice) : s.to_string();
}

template <class Args>
Status selecting(const Args& a) {
  KernelChoice choice;
  return select(a, hopper(), kernel_table(), &choice);
}

std::vector<KernelKey> without_warp_mma() {
  std::vector<KernelKey> out;
  for (const KernelKey& k : kernel_table()) {
    if (k.schedule != Schedule::kWarpMma) out.push_back(k);
  }
  return out;
}

KernelKey key_named(const std::string& n) {
  for (const KernelKey& k : kernel_table()) {
    if (name(k) == n) return k;
  }
  ADD_FAILURE() << "no table row named " << n;
  return {};
}

TEST(GemmHeuristics, NarrowestEpilogueThatCovers) {
  GemmArgs a = shape(4096, 28672, 8192);
  EXPECT_EQ(chosen(a), "sm90_gemm_bf16_bf16_coop_128x256x64_c2x1_cast_noc");
  a.epilogue.col_bias = reinterpret_cast<const float*>(0x1000);
  a.epilogue.activation = Activation::kGeluTanh;
  a.epilogue.alpha = 0.5f;
  EXPECT_EQ(chosen(a), "sm90_gemm_bf16_bf16_pingpong_128x128x64_c1x2_biasact_noc");
  a.epilogue.row_scale = reinterpret_cast<const float*>(0x2000);
  EXPECT_EQ(chosen(a), "sm90_gemm_bf16_bf16_coop_128x256x64_c2x1_noc");
  EXPECT_EQ(required_coverage(a.epilogue), EpilogueCoverage::kFull);
  a.epilogue.col_amax = reinterpret_cast<float*>(0x3000);
  EXPECT_EQ(required_coverage(a.epilogue), EpilogueCoverage::kFullWithColumnReductions);
}

TEST(GemmHeuristics, PicksByShapeClass) {
  // Up to 64 tokens past the decode kernels' classes: the swapped 128x32 kernel (bias + activation
  // at most); its stream-K twin in split-K shares on few tiles with long K loops (8 on at most 8
  // tiles of 128 or more 128-element K steps, 4 on 16 tiles of 64 steps or 32 of 96, 2 on 66
  // tiles of two token tiles), or in CUTLASS's heuristic mode past a wave whose last is under a
  // quarter full with K >= 4096.
  const std::string swapped32 = "sm90_gemm_bf16_bf16_swap_coop_128x32x128_c1x1_biasact_noc";
  auto choice_of = [](const GemmArgs& a) {
    KernelChoice choice;
    EXPECT_TRUE(select(a, hopper(), kernel_table(), &choice).ok());
    return to_string(choice);
  };
  EXPECT_EQ(chosen(shape(17, 28672, 8192)), swapped32) << "224 tiles: a last wave of 92";
  EXPECT_EQ(chosen(shape(17, 8192, 28672)), swapped32) << "64 tiles of one token tile";
  EXPECT_EQ(choice_of(shape(64, 4096, 14336)), swapped32 + "_streamk splits=2") << "64 tiles, 112 steps";
  EXPECT_EQ(choice_of(shape(64, 4224, 14336)), swapped32 + "_streamk splits=2") << "66 tiles: 2 x 66 = 132";
  EXPECT_EQ(choice_of(shape(64, 4352, 14336)), swapped32) << "68 tiles";
  EXPECT_EQ(choice_of(shape(32, 4224, 14336)), swapped32) << "33 tiles of one token tile";
  EXPECT_EQ(choice_of(shape(40, 10240, 8192)), swapped32 + "_streamk") << "160 tiles: a last wave of 28";
  EXPECT_EQ(chosen(shape(40, 10240, 2048)), swapped32) << "160 tiles, K 2048";
  EXPECT_EQ(chosen(shape(24, 5120, 8128)), swapped32) << "64 steps, 40 tiles";
  EXPECT_EQ(choice_of(shape(45, 5120, 17920)), swapped32) << "80 tiles (Phi-3 medium's down projection)";
  EXPECT_EQ(choice_of(shape(32, 4096, 12288)), swapped32 + "_streamk splits=4") << "32 tiles, 96 steps";
  EXPECT_EQ(choice_of(shape(32, 4096, 12160)), swapped32) << "32 tiles, 95 steps";
  EXPECT_EQ(choice_of(shape(32, 2048, 8192)), swapped32 + "_streamk splits=4") << "16 tiles, 64 steps";
  EXPECT_EQ(choice_of(shape(32, 2048, 8064)), swapped32) << "16 tiles, 63 steps";
  EXPECT_EQ(choice_of(shape(64, 512, 16384)), swapped32 + "_streamk splits=8") << "8 tiles, 128 steps";
  EXPECT_EQ(choice_of(shape(64, 512, 16256)), swapped32 + "_streamk splits=4") << "8 tiles, 127 steps";
  EXPECT_EQ(choice_of(shape(17, 2176, 32768)), swapped32 + "_streamk splits=4") << "17 tiles, 256 steps";
  // At 17-64 tokens the 16-token warp-mma kernel in rows of 16 tokens on narrow weights: blocks x
  // rows <= 132 and rows x N x K <= 2^24, the most shares whose CTAs number at most 132 (8
  // shares), 198 (4) or 264 (2).
  const std::string decode16 = "sm90_gemm_bf16_bf16_swap_warpmma_16x16x64_c1x1_biasact_noc";
  EXPECT_EQ(choice_of(shape(17, 1024, 8192)), decode16 + " splits=2") << "64 blocks x 2 rows, 2^24";
  EXPECT_EQ(choice_of(shape(32, 1056, 4096)), decode16 + " splits=2") << "66 blocks x 2 rows x 2 shares = 264";
  EXPECT_EQ(choice_of(shape(32, 1056, 1984)), decode16) << "31 steps: one share";
  EXPECT_EQ(choice_of(shape(32, 704, 10240)), decode16 + " splits=2") << "44 blocks x 2 rows";
  EXPECT_EQ(choice_of(shape(48, 256, 8192)), decode16 + " splits=4") << "16 blocks x 3 rows x 4 = 192";
  EXPECT_EQ(choice_of(shape(64, 256, 8192)), decode16 + " splits=2") << "16 blocks x 4 rows x 4 = 256";
  EXPECT_EQ(choice_of(shape(17, 1024, 8256)), swapped32 + "_streamk splits=4") << "past 2^24";
  EXPECT_EQ(choice_of(shape(33, 1024, 2048)), swapped32) << "64 blocks x 3 rows > 132";
  EXPECT_EQ(choice_of(shape(64, 256, 16384)), decode16 + " splits=2") << "16 blocks x 4 rows, 2^24";
  EXPECT_EQ(choice_of(shape(25, 256, 8192)), decode16 + " splits=4") << "16 blocks x 2 rows x 4 shares";
  EXPECT_EQ(choice_of(shape(25, 256, 1024)), decode16) << "16 steps: one share";
  EXPECT_EQ(choice_of(shape(25, 256, 8192, DType::kFP16, DType::kFP16)),
            "sm90_gemm_fp16_fp16_swap_warpmma_16x16x64_c1x1_biasact_noc splits=4");
  // Beyond 64 tokens, or with a residual: swapped 128x64, stream-K when K >= 2N and the tiles fill
  // at most half of the 132 SMs.
  EXPECT_EQ(chosen(shape(65, 4096, 14336)), "sm90_gemm_bf16_bf16_swap_coop_128x64x128_c1x1_streamk");
  EXPECT_EQ(chosen(shape(129, 4096, 14336)), "sm90_gemm_bf16_bf16_swap_coop_128x64x128_c1x1") << "96 tiles: 2 x 96 > 132";
  EXPECT_EQ(chosen(shape(192, 28672, 8192)), "sm90_gemm_bf16_bf16_swap_coop_128x64x128_c1x1");
  // 2 x 128x256 tiles <= 3 x 132: stream-K 128x128 (its narrowest tree without C); beyond, 128x256
  // with the cluster along the even side.
  EXPECT_EQ(chosen(shape(193, 8192, 8192)), "sm90_gemm_bf16_bf16_coop_128x128x64_c1x1_biasact_noc_streamk");
  EXPECT_EQ(chosen(shape(768, 8192, 8192)), "sm90_gemm_bf16_bf16_coop_128x128x64_c1x1_biasact_noc_streamk");
  EXPECT_EQ(chosen(shape(769, 8192, 8192)), "sm90_gemm_bf16_bf16_coop_128x256x64_c1x2") << "7 row tiles: odd";
  EXPECT_EQ(chosen(shape(1024, 8192, 8192)), "sm90_gemm_bf16_bf16_coop_128x256x64_c2x1_cast_noc");
}

// bias + activation runs the pingpong pair from 257 tokens when its 128x128 tiles make four waves
// (528 on 132 SMs) and K <= 16384; otherwise the cooperative kernels of the shape class.
TEST(GemmHeuristics, BiasActivationOverlapsItsEpilogueOnManyTiles) {
  const std::string pingpong = "sm90_gemm_bf16_bf16_pingpong_128x128x64_c1x2_biasact_noc";
  GemmArgs a = shape(2048, 4096, 4096);
  a.epilogue.col_bias = reinterpret_cast<const float*>(0x1000);
  a.epilogue.activation = Activation::kGeluTanh;
  EXPECT_EQ(chosen(a), "sm90_gemm_bf16_bf16_coop_128x256x64_c2x1_biasact_noc") << "16 x 32 = 512 tiles: under four waves";
  a.M = 2113;
  EXPECT_EQ(chosen(a), pingpong) << "17 x 32 = 544 tiles";
  a.M = 257;
  a.N = 65536;
  EXPECT_EQ(chosen(a), pingpong) << "3 x 512 tiles";
  a.M = 256;
  EXPECT_NE(chosen(a), pingpong);
  a.M = 4096;
  a.N = 8192;
  a.K = 16384;
  EXPECT_EQ(chosen(a), pingpong);
  a.K = 16448;
  EXPECT_EQ(chosen(a), "sm90_gemm_bf16_bf16_coop_128x256x64_c2x1_biasact_noc") << "long K loop";
  a.K = 4096;
  a.epilogue.col_bias = nullptr;
  a.epilogue.activation = Activation::kIdentity;
  EXPECT_EQ(chosen(a), "sm90_gemm_bf16_bf16_coop_128x256x64_c2x1_cast_noc") << "no epilogue work to hide";
  a.epilogue.col_bias = reinterpret_cast<const float*>(0x1000);
  a.epilogue.residual = reinterpret_cast<void*>(0x2000);
  a.epilogue.ldc = a.N;
  EXPECT_EQ(chosen(a), "sm90_gemm_bf16_bf16_coop_128x256x64_c2x1") << "the full tree with C";
  GemmArgs h = shape(4096, 8192, 4096, DType::kFP16, DType::kFP16);
  h.epilogue.col_bias = a.epilogue.col_bias;
  EXPECT_EQ(chosen(h), "sm90_gemm_fp16_fp16_coop_128x256x64_c1x2") << "no fp16 pair: the dtype's large-M kernel";
}

// Up to 16 tokens epifuse's own choice is a warp-mma kernel wherever its epilogue serves the call
// (alpha, a column bias, an activation; D in the inputs' type) and its blocks of 16 rows fit in a
// wave: up to 8 tokens one token tile in 4 x 132 single CTAs, with the most K-loop shares whose
// CTAs fit in a wave of the wide CTAs (2 per SM, 1.7 in clusters of 4 or 8) with at least 32 steps
// each; at 9-16 tokens two, on weights of up to 64 MiB (or narrow ones with rows of up to 32768)
// whose blocks fit in 2 x 132 wide CTAs, with the most shares that fit in 3 x 132 with at least 16
// steps each (two blocks per CTA from 24 MiB: 2 x 132 CTAs, fewer in clusters of 4 or 8, or 8
// shares of CTAs of 4 warps on up to 66 CTAs). Past those waves the swapped
// 128x32 kernel; where a dtype lacks it (fp16), the warp-mma kernels as before it: two shares where
// the singles' last wave is short, two token tiles up to 3 x 132 blocks. (Calls cuBLASLt computes
// are delegated before dispatch: gemm_behavior_test.cpp.)
TEST(GemmHeuristics, DecodeKernelsByWaves) {
  const std::string decode = "sm90_gemm_bf16_bf16_swap_warpmma_16x8x64_c1x1_biasact_noc";
  const std::string decode16 = "sm90_gemm_bf16_bf16_swap_warpmma_16x16x64_c1x1_biasact_noc";
  auto splits_of = [](const GemmArgs& a) {
    KernelChoice choice;
    EXPECT_TRUE(select(a, hopper(), kernel_table(), &choice).ok());
    return choice.splits;
  };
  EXPECT_EQ(chosen(shape(1, 4096, 4096)), decode);
  const std::string swapped32 = "sm90_gemm_bf16_bf16_swap_coop_128x32x128_c1x1_biasact_noc";
  EXPECT_EQ(chosen(shape(3, 46272, 320)), swapped32) << "2892 blocks: past a wave of singles";
  EXPECT_EQ(chosen(shape(3, 8192, 320)), decode) << "short rows in one wave";
  EXPECT_EQ(chosen(shape(8, 7680, 5120)), decode);
  EXPECT_EQ(chosen(shape(8, 8448, 8192)), decode) << "528 blocks: one wave of singles";
  EXPECT_EQ(chosen(shape(8, 10240, 8192)), swapped32) << "640 blocks";
  EXPECT_EQ(chosen(shape(9, 4096, 4096)), decode16);
  EXPECT_EQ(chosen(shape(16, 4096, 8192)), decode16) << "64 MiB of weight";
  EXPECT_EQ(chosen(shape(16, 4096, 8256)), decode16) << "past 64 MiB on 256 blocks, rows of at most 20480";
  EXPECT_EQ(chosen(shape(16, 3584, 14336)), decode16) << "past 64 MiB on 224 blocks, rows of at most 20480";
  EXPECT_EQ(chosen(shape(16, 4096, 20544)), swapped32 + "_streamk") << "256 blocks, rows past 20480";
  EXPECT_EQ(chosen(shape(16, 2112, 32768)), decode16) << "132 blocks, rows of at most 32768";
  EXPECT_EQ(chosen(shape(16, 2112, 32832)), swapped32 + "_streamk") << "132 blocks, rows past 32768";
  EXPECT_EQ(chosen(shape(16, 2128, 28672)), swapped32 + "_streamk") << "133 blocks, rows past 20480";
  EXPECT_EQ(chosen(shape(11, 784, 43008)), decode16) << "past 64 MiB, 49 blocks: 8 shares fit in 3 x 132";
  EXPECT_EQ(chosen(shape(11, 800, 43008)), swapped32 + "_streamk") << "past 64 MiB, 50 blocks";
  EXPECT_EQ(chosen(shape(16, 8192, 3584)), swapped32) << "512 blocks";
  EXPECT_EQ(chosen(shape(16, 4224, 2048)), decode16) << "264 blocks: two wide CTAs per SM";
  EXPECT_EQ(chosen(shape(16, 4240, 2048)), swapped32) << "265 blocks";
  struct Shares {
    std::int64_t M, N, K;
    int splits;
    const char* why;
    DType dtype = DType::kBF16;  // fp16: no swapped 128x32 kernel, the warp-mma kernels past their waves
  };
  const Shares shares[] = {
      {1, 4096, 4096, 1, "256 blocks"},
      {8, 2048, 4096, 2, "128 blocks, K 4096"},
      {8, 2048, 2048, 1, "128 blocks, K 2048"},
      {8, 3072, 8192, 1, "192 blocks"},
      {5, 1000, 520, 1, "63 blocks, 9 steps: two shares need 32"},
      {5, 1000, 8200, 2, "63 blocks"},
      {2, 448, 35264, 8, "28 blocks: 224 CTAs"},
      {3, 704, 43712, 4, "44 blocks"},
      {1, 1024, 16384, 2, "64 blocks: 256 CTAs in clusters of 4 lost"},
      {2, 9344, 37440, 2, "584 blocks: a second wave of singles 11 % full", DType::kFP16},
      {2, 11712, 8832, 1, "732 blocks: 39 % full", DType::kFP16},
      {2, 26816, 4160, 1, "1676 blocks: past two waves", DType::kFP16},
      {16, 6336, 2048, 1, "two token tiles: 396 blocks", DType::kFP16},
      {9, 3072, 3072, 2, "192 blocks, one per CTA under 24 MiB: two shares fill one wave"},
      {9, 3584, 4096, 2, "two blocks per CTA from 24 MiB: 112 CTAs"},
      {13, 256, 20032, 8, "16 blocks, 313 steps"},
      {11, 640, 56384, 8, "40 blocks, 72 MB"},
      {16, 1024, 4096, 4, "64 blocks, 64 steps"},
      {16, 4096, 4096, 2, "two blocks per CTA: 128 CTAs, 2 shares fill one wave"},
      {16, 1024, 28672, 4, "two blocks per CTA: 32 CTAs, 4 shares within 1.5 x SMs"},
      {16, 2048, 14336, 8, "two blocks per CTA: 64 CTAs, 8 shares of CTAs of 4 warps"},
      {16, 6144, 4096, 1, "two blocks per CTA: 192 CTAs", DType::kFP16},
      {11, 1664, 512, 1, "8 steps"},
  };
  for (const Shares& c : shares) {
    EXPECT_EQ(splits_of(shape(c.M, c.N, c.K, c.dtype, c.dtype)), c.splits)
        << c.M << "x" << c.N << "x" << c.K << ": " << c.why;
  }
  EXPECT_EQ(chosen(shape(17, 4096, 4096)), swapped32);
  // On HBM3 (an H100: 3352 GB/s) 9-16 tokens on more than 192 blocks of rows of at most 4096 take
  // the 128x32 kernel's whole tiles; an unknown bandwidth keeps the rules above.
  const DeviceCaps h100 = epifuse::detail::h100();
  DeviceCaps unknown = hopper();
  unknown.dram_gbps = 0;
  EXPECT_EQ(chosen_on(h100, shape(9, 4096, 4096)), swapped32) << "256 blocks, rows of 4096";
  EXPECT_EQ(chosen_on(h100, shape(16, 3088, 4096)), swapped32) << "193 blocks";
  EXPECT_EQ(chosen_on(h100, shape(16, 3072, 4096)), decode16) << "192 blocks";
  EXPECT_EQ(chosen_on(h100, shape(13, 3584, 4160)), decode16) << "rows past 4096";
  EXPECT_EQ(chosen_on(h100, shape(8, 4096, 4096)), decode) << "8 tokens";
  EXPECT_EQ(chosen_on(h100, shape(9, 4096, 4096, DType::kFP16, DType::kFP16)),
            "sm90_gemm_fp16_fp16_swap_warpmma_16x16x64_c1x1_biasact_noc")
      << "no 128x32 kernel in fp16";
  EXPECT_EQ(chosen_on(unknown, shape(9, 4096, 4096)), decode16);
  EXPECT_EQ(chosen(shape(8, 10240, 8192, DType::kFP16, DType::kFP16)),
            "sm90_gemm_fp16_fp16_swap_warpmma_16x8x64_c1x1_biasact_noc");
  EXPECT_EQ(chosen(shape(16, 6336, 2048, DType::kFP16, DType::kFP16)),
            "sm90_gemm_fp16_fp16_swap_warpmma_16x16x64_c1x1_biasact_noc");
  EXPECT_EQ(chosen(shape(17, 4096, 4096, DType::kFP16, DType::kFP16)), "sm90_gemm_fp16_fp16_swap_coop_128x64x128_c1x1");
  EXPECT_EQ(chosen(shape(1, 4096, 4096, DType::kFP16, DType::kFP16)),
            "sm90_gemm_fp16_fp16_swap_warpmma_16x8x64_c1x1_biasact_noc");
  EXPECT_NE(chosen(shape(1, 4096, 4096, DType::kBF16, DType::kFP32)), decode) << "D in fp32";

  GemmArgs a = shape(1, 4096, 4096);
  a.epilogue.alpha = 0.5f;
  a.epilogue.col_bias = reinterpret_cast<const float*>(0x1000);
  a.epilogue.activation = Activation::kSiLU;
  EXPECT_EQ(chosen(a), decode);
  a.epilogue.col_bias_dtype = DType::kBF16;
  EXPECT_EQ(chosen(a), decode) << "a 16-bit bias, widened first";
  a.M = 37;
  EXPECT_EQ(chosen(a), swapped32) << "a 16-bit bias at 37 tokens";
  a.M = 1;
  const std::string full_tree_with_c = "sm90_gemm_bf16_bf16_swap_coop_128x64x128_c1x1";
  a.epilogue.row_scale = reinterpret_cast<const float*>(0x2000);
  EXPECT_EQ(chosen(a), full_tree_with_c) << "the full tree";
  a.M = 37;
  EXPECT_EQ(chosen(a), full_tree_with_c) << "the full tree at 37 tokens";
  a.M = 1;
  a.epilogue.row_scale = nullptr;
  a.epilogue.residual = reinterpret_cast<void*>(0x3000);
  a.epilogue.ldc = 4096;
  EXPECT_EQ(chosen(a), full_tree_with_c) << "a residual";
  EXPECT_EQ(chosen(shape(13, 4096, 4096), without_warp_mma()), swapped32) << "a build without the warp-mma kernels";

  GemmArgs forced = shape(9, 4096, 4096);
  forced.kernel = KernelChoice{key_named(decode)};
  const Status s = selecting(forced);
  EXPECT_EQ(s.code(), StatusCode::kInvalidArgument);
  EXPECT_NE(s.message().find("serves at most 8 tokens, the call has 9"), std::string::npos) << s.message();
  forced.M = 65;
  forced.kernel = KernelChoice{key_named(decode16)};
  EXPECT_NE(selecting(forced).message().find("serves at most 64 tokens, the call has 65"), std::string::npos);
  for (std::int64_t M : {9, 17, 64}) {
    forced.M = M;
    EXPECT_TRUE(selecting(forced).ok()) << M << " tokens: rows of 16 along the grid's y";
  }
  forced.M = 8;
  forced.kernel->splits = 3;
  EXPECT_NE(selecting(forced).message().find("among 1, 2, 4 or 8 CTAs"), std::string::npos);
}

// Of the calls cuBLASLt expresses, decode calls on narrow weights without a bias or residual run
// the warp-mma kernel; the rest, and every call of a build without that kernel, run cuBLASLt.
TEST(GemmHeuristics, NarrowDecodeCallsRunTheirOwnKernel) {
  auto pays = [](const GemmArgs& a, const std::vector<KernelKey>& candidates = kernel_table()) {
    return gemm_delegation_pays(a, hopper(), candidates);
  };
  EXPECT_FALSE(pays(shape(1, 1024, 4096))) << "a GQA k or v projection";
  EXPECT_FALSE(pays(shape(8, 2048, 4096)));
  EXPECT_FALSE(pays(shape(5, 1024, 2048, DType::kFP16, DType::kFP16)));
  EXPECT_TRUE(pays(shape(9, 1024, 4096))) << "9 tokens";
  EXPECT_TRUE(pays(shape(1, 3072, 4096))) << "N 3072";
  EXPECT_FALSE(pays(shape(1, 512, 4096))) << "N 512";
  EXPECT_FALSE(pays(shape(7, 320, 1536))) << "N 320, K 1536";
  EXPECT_FALSE(pays(shape(3, 1000, 8192))) << "N 1000, K 8192";
  EXPECT_TRUE(pays(shape(1, 512, 1472))) << "N 512, K under 1536";
  EXPECT_TRUE(pays(shape(6, 512, 8256))) << "N 512, K over 8192";
  EXPECT_TRUE(pays(shape(2, 1088, 4160))) << "N 1088, K over 4096";
  EXPECT_TRUE(pays(shape(8, 2048, 8192))) << "N 2048, K over 4096";
  EXPECT_TRUE(pays(shape(1, 192, 4096))) << "N under 256";
  EXPECT_TRUE(pays(shape(1, 1024, 1536))) << "N 1024, K under 2048";
  EXPECT_TRUE(pays(shape(1, 1024, 16384))) << "K 16384";
  EXPECT_TRUE(pays(shape(1, 1024, 1024))) << "K 1024";
  EXPECT_TRUE(pays(shape(2, 2048, 2240))) << "128 blocks, K under 4096: one K-loop share";
  EXPECT_TRUE(pays(shape(1, 1024, 4096, DType::kBF16, DType::kFP32))) << "D in fp32: no warp-mma kernel";
  DeviceCaps few_sms = hopper();
  few_sms.sm_count = 16;
  EXPECT_TRUE(gemm_delegation_pays(shape(1, 2048, 4096), few_sms, kernel_table()))
      << "128 blocks past one wave of 4 x 16 singles: the swapped 128x32 kernel would run";
  EXPECT_FALSE(gemm_delegation_pays(shape(1, 1024, 4096), few_sms, kernel_table())) << "64 blocks: one wave";
  EXPECT_FALSE(gemm_delegation_pays(shape(1, 2048, 4096, DType::kFP16, DType::kFP16), few_sms, kernel_table()))
      << "fp16: the warp-mma kernel runs past its wave";
  GemmArgs a = shape(1, 1024, 4096);
  a.epilogue.activation = Activation::kGeluTanh;
  EXPECT_FALSE(pays(a));
  a.epilogue.col_bias = reinterpret_cast<const float*>(0x1000);
  EXPECT_TRUE(pays(a)) << "a bias";
  a.epilogue.col_bias = nullptr;
  a.epilogue.residual = reinterpret_cast<void*>(0x3000);
  a.epilogue.ldc = 1024;
  EXPECT_TRUE(pays(a)) << "a residual";
  EXPECT_TRUE(pays(shape(1, 1024, 4096), without_warp_mma())) << "a build without the warp-mma kernel";
}

TEST(GemmHeuristics, ResidualNeedsAKernelWithC) {
  GemmArgs a = shape(4096, 28672, 8192);
  a.epilogue.residual = reinterpret_cast<void*>(0x1000);
  a.epilogue.ldc = 28672;
  EXPECT_EQ(chosen(a), "sm90_gemm_bf16_bf16_coop_128x256x64_c2x1");
  a.M = 7;
  EXPECT_EQ(chosen(a), "sm90_gemm_bf16_bf16_swap_coop_128x64x128_c1x1");
}

TEST(GemmHeuristics, ColumnReductionsTakeTheirKernel) {
  GemmArgs a = shape(4096, 28672, 8192);
  a.epilogue.amax = reinterpret_cast<float*>(0x1000);
  a.epilogue.row_amax = reinterpret_cast<float*>(0x2000);
  EXPECT_EQ(chosen(a), "sm90_gemm_bf16_bf16_coop_128x256x64_c2x1_noc") << "amax and row reductions run in every kernel";
  a.epilogue.col_sum = reinterpret_cast<float*>(0x3000);
  EXPECT_EQ(chosen(a), "sm90_gemm_bf16_bf16_coop_128x128x64_c1x1_colreduce");
}

// Every compiled type combination has a kernel for every shape class and epilogue: the chosen
// key is in the table, computes the call's types and covers its epilogue.
TEST(GemmHeuristics, EveryTypeCombinationHasAKernelForEveryCall) {
  const std::pair<DType, DType> pairs[] = {
      {DType::kBF16, DType::kBF16}, {DType::kBF16, DType::kFP32}, {DType::kFP16, DType::kFP16}, {DType::kFP16, DType::kFP32}};
  for (auto [in, out] : pairs) {
    for (std::int64_t M : {1, 64, 65, 100, 256, 257, 5000}) {
      GemmArgs a = shape(M, 1024, 1024, in, out);
      for (int variant = 0; variant < 3; ++variant) {
        if (variant >= 1) {
          a.epilogue.residual = reinterpret_cast<void*>(0x2000);
          a.epilogue.ldc = 1024;
        }
        if (variant == 2) a.epilogue.col_amax = reinterpret_cast<float*>(0x1000);
        KernelChoice choice;
        ASSERT_TRUE(select(a, hopper(), kernel_table(), &choice).ok()) << to_string(in) << "->" << to_string(out);
        const KernelKey& k = choice.key;
        EXPECT_EQ(k.op, Op::kGemm);
        EXPECT_TRUE(k.a == in && k.b == in && k.d == out) << name(k);
        EXPECT_GE(k.epilogue, required_coverage(a.epilogue)) << name(k);
        EXPECT_TRUE(k.has_c || !a.epilogue.residual) << name(k);
      }
    }
  }
}

TEST(GemmHeuristics, ForcedKernelMustFit) {
  GemmArgs a = shape(4096, 1024, 1024);
  a.kernel = KernelChoice{key_named("sm90_gemm_bf16_bf16_coop_128x256x64_c2x1"), RasterOrder::kAlongM, 4};
  EXPECT_EQ(chosen(a), "sm90_gemm_bf16_bf16_coop_128x256x64_c2x1");

  auto expect_rejected = [&](const GemmArgs& args, const std::string& message) {
    const Status s = selecting(args);
    EXPECT_EQ(s.code(), StatusCode::kInvalidArgument) << message;
    EXPECT_NE(s.message().find(message), std::string::npos) << "expected: " << message << "\ngot: " << s.message();
  };
  GemmArgs bad = a;
  bad.kernel->swizzle = 3;
  expect_rejected(bad, "the swizzle must be 1, 2, 4 or 8");
  bad = a;
  bad.kernel->splits = 2;
  expect_rejected(bad, "only stream-K and warp-mma kernels split the K loop");
  bad.kernel = KernelChoice{key_named("sm90_gemm_bf16_bf16_coop_128x128x64_c1x1_streamk")};
  bad.kernel->splits = 33;
  expect_rejected(bad, "splits must be 1 to 32");
  bad = a;
  bad.kernel->stream_k = StreamKMode::kShareTail;
  expect_rejected(bad, "only a stream-K kernel with splits 1 takes a stream-K mode");
  GemmArgs share_tail = a;
  share_tail.kernel = KernelChoice{key_named("sm90_gemm_bf16_bf16_coop_128x128x64_c1x1_streamk")};
  share_tail.kernel->stream_k = StreamKMode::kShareTail;
  EXPECT_TRUE(selecting(share_tail).ok());
  share_tail.kernel->splits = 2;
  expect_rejected(share_tail, "only a stream-K kernel with splits 1 takes a stream-K mode");
  bad = a;
  bad.kernel->key.tile.n = 96;
  expect_rejected(bad, "is not compiled in this build");
  bad = a;
  bad.kernel = KernelChoice{key_named("sm90_gemm_fp16_fp16_swap_coop_128x64x128_c1x1")};
  expect_rejected(bad, "computes fp16 x fp16 -> fp16, the call bf16 x bf16 -> bf16");
  bad = a;
  bad.kernel = KernelChoice{key_named("sm90_gated_mlp_bf16_bf16_pingpong_128x128x64_c1x2")};
  expect_rejected(bad, "is a gated_mlp kernel");
  bad = a;
  bad.kernel = KernelChoice{key_named("sm90_gemm_bf16_bf16_coop_128x256x64_c2x1_noc")};
  bad.epilogue.residual = reinterpret_cast<void*>(0x2000);
  bad.epilogue.ldc = 1024;
  expect_rejected(bad, "is compiled without C; this epilogue has a residual");
  bad = a;
  bad.epilogue.col_sum = reinterpret_cast<float*>(0x1000);
  expect_rejected(bad, "serves full epilogues; this one needs full_with_column_reductions");
}

// A build filtered to other kernels falls back, then says that nothing serves the call.
TEST(GemmHeuristics, FilteredBuildsFallBackOrSaySo) {
  const std::vector<KernelKey> only_large = {key_named("sm90_gemm_bf16_bf16_coop_128x256x64_c1x2")};
  EXPECT_EQ(chosen(shape(7, 1024, 1024), only_large), "sm90_gemm_bf16_bf16_coop_128x256x64_c1x2");
  const std::string none = chosen(shape(7, 1024, 1024, DType::kFP16, DType::kFP16), only_large);
  EXPECT_NE(none.find("not supported: gemm: no compiled sm90 kernel serves fp16"), std::string::npos) << none;
}

// No kernel for the device is dispatch's answer, with a message; the query itself refused nothing.
TEST(Dispatch, DevicesWithoutKernelsAreNotSupported) {
  DeviceCaps ampere = hopper();
  ampere.cc_major = 8;
  ampere.name = "NVIDIA A100";
  KernelChoice choice;
  const Status s = select(shape(128, 1024, 1024), ampere, kernel_table(), &choice);
  EXPECT_EQ(s.code(), StatusCode::kNotSupported);
  EXPECT_NE(s.message().find("no epifuse kernel runs on device 0 (NVIDIA A100, sm_80)"), std::string::npos)
      << s.message();
  GatedMlpArgs g;
  g.M = 1;
  EXPECT_EQ(select(g, ampere, kernel_table(), &choice).code(), StatusCode::kNotSupported);
  DeviceCaps blackwell = hopper();
  blackwell.cc_major = 10;
  EXPECT_FALSE(kernel_arch(blackwell).has_value()) << "sm_90a kernels do not run on sm_100";
}

GatedMlpArgs gated(std::int64_t M, std::int64_t N = 1000, std::int64_t K = 520, DType dtype = DType::kBF16) {
  GatedMlpArgs a;
  a.M = M;
  a.N = a.w.N = N;
  a.w.K = a.w.ld = a.ldx = K;
  a.w.dtype = a.x_dtype = a.out_dtype = dtype;
  return a;
}

// The shape classes of src/dispatch/sm90/gated_mlp_heuristics.cpp, and the fp16 fallbacks.
TEST(GatedMlpHeuristics, PicksTheKernelOfEachShapeClass) {
  const std::pair<std::int64_t, const char*> expected[] = {
      {1, "sm90_gated_mlp_bf16_bf16_swap_coop_128x16x128_c1x1"},      {16, "sm90_gated_mlp_bf16_bf16_swap_coop_128x16x128_c1x1"},
      {17, "sm90_gated_mlp_bf16_bf16_swap_coop_128x32x128_c1x1"},      {32, "sm90_gated_mlp_bf16_bf16_swap_coop_128x32x128_c1x1"},
      {33, "sm90_gated_mlp_bf16_bf16_swap_coop_128x32x128_c1x1_streamk"},
      {64, "sm90_gated_mlp_bf16_bf16_swap_coop_128x32x128_c1x1_streamk"},
      // One 80-, 96- or 112-token tile up to 112 tokens (pingpong112_pays: 224 weight tiles, K 4096),
      // one 128-token tile beyond.
      {65, "sm90_gated_mlp_bf16_bf16_swap_coop_128x80x64_c2x1"},     {80, "sm90_gated_mlp_bf16_bf16_swap_coop_128x80x64_c2x1"},
      {81, "sm90_gated_mlp_bf16_bf16_swap_coop_128x96x64_c2x1"},     {96, "sm90_gated_mlp_bf16_bf16_swap_coop_128x96x64_c2x1"},
      {97, "sm90_gated_mlp_bf16_bf16_swap_pingpong_128x112x64_c2x1"},
      {112, "sm90_gated_mlp_bf16_bf16_swap_pingpong_128x112x64_c2x1"},
      {113, "sm90_gated_mlp_bf16_bf16_pingpong_128x128x64_c1x2"},
      {128, "sm90_gated_mlp_bf16_bf16_pingpong_128x128x64_c1x2"},
      // The tiling that pads least: one token tile of 144 to 224, two of 144, 160 or 224,
      // 96-token pairs (192 rows), 128-token pairs, unswapped 128-row tiles.
      {129, "sm90_gated_mlp_bf16_bf16_swap_coop_128x144x64_c2x1"},    {144, "sm90_gated_mlp_bf16_bf16_swap_coop_128x144x64_c2x1"},
      {145, "sm90_gated_mlp_bf16_bf16_swap_coop_128x160x64_c2x1"},    {160, "sm90_gated_mlp_bf16_bf16_swap_coop_128x160x64_c2x1"},
      {161, "sm90_gated_mlp_bf16_bf16_swap_coop_128x176x64_c2x1"},    {176, "sm90_gated_mlp_bf16_bf16_swap_coop_128x176x64_c2x1"},
      {177, "sm90_gated_mlp_bf16_bf16_swap_pingpong_128x96x64_c1x2"}, {192, "sm90_gated_mlp_bf16_bf16_swap_pingpong_128x96x64_c1x2"},
      {193, "sm90_gated_mlp_bf16_bf16_swap_coop_128x208x64_c2x1"},    {208, "sm90_gated_mlp_bf16_bf16_swap_coop_128x208x64_c2x1"},
      {209, "sm90_gated_mlp_bf16_bf16_swap_coop_128x224x64_c2x1"},    {224, "sm90_gated_mlp_bf16_bf16_swap_coop_128x224x64_c2x1"},
      {225, "sm90_gated_mlp_bf16_bf16_swap_pingpong_128x128x64_c1x2"}, {512, "sm90_gated_mlp_bf16_bf16_swap_pingpong_128x128x64_c1x2"},
      {257, "sm90_gated_mlp_bf16_bf16_swap_coop_128x144x64_c2x1"},    {288, "sm90_gated_mlp_bf16_bf16_swap_coop_128x144x64_c2x1"},
      {289, "sm90_gated_mlp_bf16_bf16_swap_pingpong_128x160x64_c2x1"},  // pingpong160_pays
      {320, "sm90_gated_mlp_bf16_bf16_swap_pingpong_128x160x64_c2x1"},
      {321, "sm90_gated_mlp_bf16_bf16_swap_pingpong_128x96x64_c1x2"},  {373, "sm90_gated_mlp_bf16_bf16_swap_pingpong_128x96x64_c1x2"},
      {385, "sm90_gated_mlp_bf16_bf16_swap_coop_128x224x64_c2x1_streamk"},
      {448, "sm90_gated_mlp_bf16_bf16_swap_coop_128x224x64_c2x1_streamk"},
      {545, "sm90_gated_mlp_bf16_bf16_swap_pingpong_128x96x64_c1x2"},
      {600, "sm90_gated_mlp_bf16_bf16_swap_pingpong_128x160x64_c2x1"},
      {777, "sm90_gated_mlp_bf16_bf16_swap_pingpong_128x160x64_c2x1"},
      {801, "sm90_gated_mlp_bf16_bf16_pingpong_128x128x64_c1x2"},     {1286, "sm90_gated_mlp_bf16_bf16_pingpong_128x128x64_c1x2"},
      {4096, "sm90_gated_mlp_bf16_bf16_swap_pingpong_128x128x64_c1x2"},
      {4097, "sm90_gated_mlp_bf16_bf16_pingpong_128x128x64_c1x2"},    {16384, "sm90_gated_mlp_bf16_bf16_pingpong_128x128x64_c1x2"},
  };
  for (const auto& [M, kernel] : expected) EXPECT_EQ(chosen(gated(M, 14336, 4096)), kernel) << "M = " << M;
  // Llama-405B: a 3.5 GB packed weight takes the cooperative 128x256 tile beyond M = 2048.
  EXPECT_EQ(chosen(gated(2048, 53248, 16384)), "sm90_gated_mlp_bf16_bf16_swap_pingpong_128x128x64_c1x2");
  EXPECT_EQ(chosen(gated(2049, 53248, 16384)), "sm90_gated_mlp_bf16_bf16_coop_128x256x64_c1x2");
  EXPECT_EQ(chosen(gated(16384, 53248, 16384)), "sm90_gated_mlp_bf16_bf16_coop_128x256x64_c1x2");
  EXPECT_EQ(chosen(gated(4096, 1000, 520, DType::kFP16)), "sm90_gated_mlp_fp16_fp16_coop_128x256x64_c1x2");
  EXPECT_EQ(chosen(gated(200, 14336, 4096, DType::kFP16)), "sm90_gated_mlp_fp16_fp16_coop_128x256x64_c1x2");
  EXPECT_EQ(chosen(gated(16, 1000, 520, DType::kFP16)), "sm90_gated_mlp_fp16_fp16_swap_coop_128x64x128_c1x1");
  EXPECT_EQ(chosen(gated(1, 320, 9536, DType::kFP16)), "sm90_gated_mlp_fp16_fp16_swap_coop_128x64x128_c1x1");

  GatedMlpArgs forced = gated(333);
  forced.kernel = KernelChoice{key_named("sm90_gated_mlp_fp16_fp16_coop_128x256x64_c1x2")};
  EXPECT_NE(selecting(forced).message().find("computes fp16 x fp16 -> fp16, the call bf16 x bf16 -> bf16"),
            std::string::npos);
  forced.kernel = KernelChoice{key_named("sm90_gemm_bf16_bf16_coop_128x256x64_c1x2")};
  EXPECT_NE(selecting(forced).message().find("is a gemm kernel"), std::string::npos);
}

// Where the swapped 128-token pair and the unswapped 128-row tiles compute the same rows, K under
// 1024 takes the unswapped pingpong (H200 sweep and H100 A/B,
// bench/results/tuning/issue9/wide-257-288/); K = 1024 and an odd count of tiles are unchanged.
TEST(GatedMlpHeuristics, ShortKTiesTakeTheUnswappedTiles) {
  const std::string swapped = "sm90_gated_mlp_bf16_bf16_swap_pingpong_128x128x64_c1x2";
  const std::string unswapped = "sm90_gated_mlp_bf16_bf16_pingpong_128x128x64_c1x2";
  EXPECT_EQ(chosen(gated(1414, 10304, 320)), unswapped) << "12 token tiles either way";
  EXPECT_EQ(chosen(gated(3000, 12288, 1016)), unswapped);
  EXPECT_EQ(chosen(gated(700, 8192, 320)), unswapped) << "the GPU suite's case";
  EXPECT_EQ(chosen(gated(2560, 12288, 1024)), swapped) << "K 1024";
  EXPECT_EQ(chosen(gated(1414, 10304, 4096)), "sm90_gated_mlp_bf16_bf16_swap_pingpong_128x160x64_c2x1")
      << "1440 rows of 160 against 1536";
  EXPECT_EQ(chosen(gated(1600, 16384, 256)), unswapped) << "13 tiles: the unswapped pad less anyway";
}

// Swapped 144- to 224-token tiles (144, 176 and 208 whole only): stream-K for one tile where
// 2N / 128 weight tiles fill their last wave below 80 % (Qwen2.5-7B: 296 tiles on 132 SMs, 75 %) or
// K >= 8192 (Llama-3 70B); whole tiles for Llama-3 8B (224, 85 %) and within one wave; two
// 160-token tiles (289-320 tokens) whole while the weight alone does not fill the SMs; beyond 3.4
// waves (Qwen2.5-72B: 462 tiles) whole tiles of the kinds swept there, else the pairs.
TEST(GatedMlpHeuristics, TokenTilesOf144To224) {
  struct Case {
    std::int64_t M, N, K;
    const char* kernel;
  };
  const Case expected[] = {
      {149, 18944, 3584, "swap_coop_128x160x64_c2x1_streamk"},
      {200, 28672, 8192, "swap_coop_128x224x64_c2x1_streamk"},
      {200, 14336, 3584, "swap_coop_128x208x64_c2x1"},
      {149, 29568, 8192, "swap_pingpong_128x96x64_c1x2"},
      {200, 29568, 8192, "swap_coop_128x208x64_c2x1"},
      {300, 8192, 2048, "swap_pingpong_128x160x64_c2x1"},  // pingpong160_pays (K < 5120)
      {200, 9856, 384, "pingpong_128x128x64_c1x2"},              // K < 1024: the wave model's
      {281, 13888, 384, "pingpong_128x128x64_c1x2"},
      {161, 14848, 320, "swap_pingpong_128x96x64_c1x2"},
      {395, 10688, 384, "pingpong_128x128x64_c1x2"},             // not three 144-token tiles
      {390, 41024, 768, "pingpong_128x128x64_c1x2"},             // not two 208-token tiles
      // The GPU suite's token-tile cases (tests/gpu/gated_test.cpp).
      {141, 7168, 1024, "swap_coop_128x144x64_c2x1"},
      {149, 9472, 1024, "swap_coop_128x160x64_c2x1_streamk"},
      {160, 7168, 1024, "swap_coop_128x160x64_c2x1"},
      {170, 7168, 1024, "swap_coop_128x176x64_c2x1"},
      {270, 7168, 1024, "swap_coop_128x144x64_c2x1"},
      {197, 7168, 1024, "swap_coop_128x208x64_c2x1"},
      {224, 9472, 1024, "swap_coop_128x224x64_c2x1_streamk"},
      {401, 8192, 1024, "swap_coop_128x224x64_c2x1"},
      {433, 9472, 1024, "swap_coop_128x224x64_c2x1_streamk"},
      {785, 9472, 1024, "swap_coop_128x160x64_c2x1_streamk"},
      {790, 8448, 1024, "swap_coop_128x160x64_c2x1"},
      // 144-, 176- and 208-token tiles only where whole tiles are chosen: Llama-3 8B (no stream-K)
      // takes them, Llama-3 70B and Qwen2.5-7B keep the stream-K kernels (or the 96-token pair) at
      // one tile; two of 144 need stream-K only for a long K and a short last wave.
      {141, 14336, 4096, "swap_coop_128x144x64_c2x1"},
      {141, 28672, 8192, "swap_coop_128x160x64_c2x1_streamk"},
      {141, 18944, 3584, "swap_coop_128x160x64_c2x1_streamk"},
      {165, 14336, 4096, "swap_coop_128x176x64_c2x1"},
      {165, 28672, 8192, "swap_pingpong_128x96x64_c1x2"},
      {165, 18944, 3584, "swap_pingpong_128x96x64_c1x2"},
      {201, 14336, 4096, "swap_coop_128x208x64_c2x1"},
      {201, 28672, 8192, "swap_coop_128x224x64_c2x1_streamk"},
      {257, 28672, 8192, "swap_coop_128x144x64_c2x1"},
      {272, 18944, 3584, "swap_coop_128x144x64_c2x1"},
      // Past 3.4 waves of weight tiles (Qwen2.5-72B: 462; Llama-3 405B: 832) two of 144, and with
      // K >= 2048 whole tiles where one of 144 or 208 or two of 160 or 224 pad least, even where
      // K >= 8192 or the weight fills the SMs (but one tile of 144 with K >= 8192:
      // The160TokenStreamKSharesItsTailPast3Point4Waves); the pairs at 145-192 and 209-256 tokens
      // and elsewhere.
      {270, 29568, 8192, "swap_coop_128x144x64_c2x1"},
      {288, 53248, 16384, "swap_coop_128x144x64_c2x1"},
      {262, 32064, 4480, "swap_coop_128x144x64_c2x1"},
      {141, 29568, 6144, "swap_coop_128x144x64_c2x1"},
      {205, 53248, 8192, "swap_coop_128x208x64_c2x1"},
      {215, 29568, 8192, "swap_pingpong_128x128x64_c1x2"},
      {300, 29568, 8192, "swap_coop_128x160x64_c2x1"},
      {440, 36864, 3072, "swap_coop_128x224x64_c2x1"},
      {170, 36864, 4096, "swap_pingpong_128x96x64_c1x2"},
      {155, 29568, 8192, "swap_pingpong_128x96x64_c1x2"},
      {350, 29568, 8192, "swap_pingpong_128x96x64_c1x2"},
      {790, 29568, 8192, "swap_pingpong_128x160x64_c2x1"},  // pingpong160_pays: 800 rows, not 896
      // With K under 2048 those keep the pairs (fresh draws), but two of 144 do not.
      {405, 45184, 1152, "swap_pingpong_128x128x64_c1x2"},
      {313, 48128, 1024, "swap_pingpong_128x96x64_c1x2"},
      {214, 57664, 1088, "swap_pingpong_128x128x64_c1x2"},
      {135, 54080, 1664, "swap_pingpong_128x96x64_c1x2"},
      {280, 40960, 768, "swap_coop_128x144x64_c2x1"},
      {289, 28672, 8192, "swap_coop_128x160x64_c2x1_streamk"},
      // Two 224-token tiles up to 448 tokens, then the 128-token pair.
      {385, 14336, 4096, "swap_coop_128x224x64_c2x1_streamk"},
      {448, 8192, 2048, "swap_coop_128x224x64_c2x1"},
      {449, 14336, 4096, "swap_pingpong_128x160x64_c2x1"},  // pingpong160_pays: 480 rows of 160
      {480, 14336, 4096, "swap_pingpong_128x160x64_c2x1"},
      // Five 160-token tiles at 769-800 tokens: stream-K below a 95 % full last wave, but the
      // pingpong 160-token tiles with K under 5120 (pingpong160_pays), and where they compute
      // fewer rows than the 128-row tiles.
      {769, 14336, 4096, "swap_pingpong_128x160x64_c2x1"},
      {800, 18944, 3584, "swap_pingpong_128x160x64_c2x1"},
      {785, 28672, 8192, "swap_coop_128x160x64_c2x1"},
      {801, 14336, 4096, "pingpong_128x128x64_c1x2"},
      {769, 29568, 8192, "swap_pingpong_128x160x64_c2x1"},
      // Few weight tiles: whole 144-208-token tiles only where twice their CTAs overflow one wave
      // (a random draw: 58 weight tiles keep the 96-token pair); 171x6208x1152 (K < 1792) takes the
      // wave model, which picks the same 176-token tile.
      {175, 3712, 17536, "swap_pingpong_128x96x64_c1x2"},
      {134, 5248, 5440, "swap_coop_128x144x64_c2x1"},
      {171, 6208, 1152, "swap_coop_128x176x64_c2x1"},
      // Two tiles of few weight tiles: stream-K where K is long and the last wave short; with a K
      // loop shorter than 1024 the wave model's kernel.
      {267, 5632, 13056, "swap_coop_128x160x64_c2x1_streamk"},
      {279, 5056, 17216, "swap_coop_128x160x64_c2x1_streamk"},
      {316, 7360, 41728, "swap_coop_128x160x64_c2x1"},
      {776, 9472, 384, "pingpong_128x128x64_c1x2"},
      {300, 9472, 512, "pingpong_128x128x64_c1x2"},
  };
  for (const Case& c : expected) {
    EXPECT_EQ(chosen(gated(c.M, c.N, c.K)), std::string("sm90_gated_mlp_bf16_bf16_") + c.kernel)
        << c.M << "x" << c.N << "x" << c.K;
  }
}

// Up to 8 tokens, bf16, off HBM3, with K < 16384, where the packed weight's blocks of 16 rows fit
// one wave of its singles (4 x 132 = 528 blocks): the warp-mma kernel in decode_splits's K-loop
// shares, ahead of the 128x32 kernel, its stream-K twin and the delegation; forced, it takes at most
// 8 tokens and a cluster of 1, 2, 4 or 8.
TEST(GatedMlpHeuristics, WarpMmaRunsWithinOneWaveOfItsSingles) {
  const std::string warp_mma = "sm90_gated_mlp_bf16_bf16_swap_warpmma_16x8x64_c1x1";
  const std::string swap32 = "sm90_gated_mlp_bf16_bf16_swap_coop_128x32x128_c1x1";
  const std::string swap16 = "sm90_gated_mlp_bf16_bf16_swap_coop_128x16x128_c1x1";
  for (const std::int64_t M : {1, 8}) {
    EXPECT_EQ(launched(gated(M, 2560, 4480)), warp_mma) << M << ": 320 blocks, 70 steps";
    EXPECT_EQ(launched(gated(M, 4224, 2496)), warp_mma) << M << ": 528 blocks";
    EXPECT_EQ(launched(gated(M, 4232, 2496)), swap16) << M << ": 529 blocks";
    EXPECT_EQ(launched(gated(M, 2368, 9984)), warp_mma) << M << ": 296 blocks, K below 16384";
    EXPECT_EQ(launched(gated(M, 2368, 16384)), swap32 + "_streamk") << M << ": K 16384";
    EXPECT_EQ(launched(gated(M, 14336, 4096)), swap16) << M;
  }
  EXPECT_EQ(launched(gated(9, 2560, 4480)), swap16);
  EXPECT_EQ(launched(gated(2, 512, 15168)), warp_mma + " splits=2") << "64 blocks, 237 steps";
  EXPECT_EQ(launched(gated(2, 384, 9216)), warp_mma + " splits=4") << "48 blocks, 144 steps";
  GatedMlpArgs fp16 = gated(2, 2560, 4480, DType::kFP16);
  EXPECT_EQ(launched(fp16).find("warpmma"), std::string::npos) << "fp16: not measured";
  EXPECT_EQ(launched(gated(2, 2368, 16376)), warp_mma) << "K 16376";
  DeviceCaps fewer_sms = hopper();
  fewer_sms.sm_count = 100;
  EXPECT_EQ(chosen_on(fewer_sms, gated(2, 3200, 4480)), warp_mma) << "400 blocks on 100 SMs";
  EXPECT_EQ(chosen_on(fewer_sms, gated(2, 3208, 4480)), swap16) << "401 blocks";
  GatedMlpArgs forced_swap32 = gated(2, 2560, 4480);
  forced_swap32.kernel = KernelChoice{key_named(swap32)};
  EXPECT_EQ(launched(forced_swap32), swap32) << "a forced kernel stays";
  EXPECT_EQ(chosen_on(h100(), gated(2, 2560, 4480)), swap32) << "HBM3: not measured";
  EXPECT_EQ(chosen(gated(2, 2560, 4480), without_warp_mma()), swap16) << "a build without it";
  EXPECT_TRUE(gated_delegation_pays(gated(1, 320, 9536), hopper(), without_warp_mma()));
  GatedMlpArgs forced = gated(9);
  forced.kernel = KernelChoice{key_named("sm90_gated_mlp_bf16_bf16_swap_warpmma_16x8x64_c1x1")};
  EXPECT_NE(selecting(forced).message().find("serves at most 8 tokens, the call has 9"), std::string::npos)
      << selecting(forced).message();
  forced.M = 8;
  forced.kernel->splits = 4;
  EXPECT_TRUE(selecting(forced).ok());
  forced.kernel->splits = 3;
  EXPECT_NE(selecting(forced).message().find("shares the K loop among 1, 2, 4 or 8 CTAs"), std::string::npos)
      << selecting(forced).message();
}

// Narrow N: 32-token tiles up to 256 tokens where 128-row tiles would be few; stream-K below half a
// wave where K >= 8192, and past one wave as in DecodeSharesAShortLastWave.
TEST(GatedMlpHeuristics, NarrowWeightsFillTheSms) {
  const char* swap16 = "sm90_gated_mlp_bf16_bf16_swap_coop_128x16x128_c1x1";
  const char* swap32 = "sm90_gated_mlp_bf16_bf16_swap_coop_128x32x128_c1x1";
  const char* swap32_stream_k = "sm90_gated_mlp_bf16_bf16_swap_coop_128x32x128_c1x1_streamk";
  const char* swap128_stream_k = "sm90_gated_mlp_bf16_bf16_swap_coop_128x128x64_c1x1_streamk";
  EXPECT_EQ(chosen(gated(9, 320, 9536)), swap32_stream_k);
  EXPECT_EQ(chosen(gated(3, 9088, 31744)), swap32_stream_k);        // 142 tiles: a second wave of 10
  EXPECT_EQ(chosen(gated(1, 14336, 4096)), swap16);                 // 224 tiles: a last wave of 92
  EXPECT_EQ(chosen(gated(1, 28672, 8192)), swap32_stream_k);        // 448 tiles: a last wave of 52
  EXPECT_EQ(chosen(gated(110, 256, 4992)), swap32);
  EXPECT_EQ(chosen(gated(128, 2048, 8192)), swap32);                // 128 tiles fill 97 %
  EXPECT_EQ(chosen(gated(142, 1792, 52032)), swap32_stream_k);
  EXPECT_EQ(chosen(gated(734, 320, 54592)), swap128_stream_k);      // delegated unless short of workspace
  EXPECT_EQ(chosen(gated(300, 1856, 34112)), swap128_stream_k);     // 87 tiles fill 66 %
  EXPECT_EQ(chosen(gated(1024, 28672, 8192)), "sm90_gated_mlp_bf16_bf16_swap_pingpong_128x128x64_c1x2");
  // Without the stream-K kernels among the candidates (a call without workspace): whole tiles.
  std::vector<KernelKey> whole;
  for (const KernelKey& k : kernel_table()) {
    if (k.decomposition == Decomposition::kDataParallel) whole.push_back(k);
  }
  EXPECT_EQ(chosen(gated(9, 320, 9536), whole), swap32);
  EXPECT_EQ(chosen(gated(300, 1856, 34112), whole), "sm90_gated_mlp_bf16_bf16_coop_128x256x64_c1x2");
  EXPECT_EQ(chosen(gated(2038, 768, 54016), whole), "sm90_gated_mlp_bf16_bf16_coop_128x256x64_c1x2");
  // Where the 160-token stream-K kernel shares its tail (129-144 tokens, past 3.4 waves): one 144-token
  // tile, not the 160-token kernel's whole tiles.
  EXPECT_EQ(chosen(gated(140, 53248, 16384), whole), "sm90_gated_mlp_bf16_bf16_swap_coop_128x144x64_c2x1");
}

// Past one wave of swapped 128x32 tiles: stream-K where CUTLASS's heuristic mode shares the last two
// waves (the last below half of the 132 SMs), whole tiles fill their waves below 85 % and K >= 2048.
// On HBM3e a last wave at least half full shares too where K >= 8192 and the waves are below 92 %
// full (DecodeSharesTheLastTwoWavesWithALongK): Qwen2.5-72B and 2x13440x14336 below.
TEST(GatedMlpHeuristics, DecodeSharesAShortLastWave) {
  const char* swap16 = "sm90_gated_mlp_bf16_bf16_swap_coop_128x16x128_c1x1";
  const char* swap32 = "sm90_gated_mlp_bf16_bf16_swap_coop_128x32x128_c1x1";
  const char* swap32_stream_k = "sm90_gated_mlp_bf16_bf16_swap_coop_128x32x128_c1x1_streamk";
  EXPECT_EQ(chosen(gated(1, 18944, 3584)), swap32_stream_k);  // Qwen2.5-7B: 296 tiles, last wave 32, 75 %
  EXPECT_EQ(chosen(gated(8, 17920, 5120)), swap32_stream_k);  // Phi-3 medium: 280, last 16, 71 %
  EXPECT_EQ(chosen(gated(32, 28672, 8192)), swap32_stream_k); // Llama-3 70B: 448, last 52, 84.8 %
  EXPECT_EQ(chosen(gated(33, 28672, 8192)), swap32);          // 896 tiles: a last wave of 104
  EXPECT_EQ(chosen(gated(9, 14336, 3584)), swap16);           // Gemma-2 9B: 224, last 92
  EXPECT_EQ(chosen(gated(17, 14336, 3584)), swap32);          // past 16 tokens
  EXPECT_EQ(chosen(gated(1, 29568, 8192)), swap32_stream_k);  // Qwen2.5-72B: 462, last 66 (half), 87.5 % full
  EXPECT_EQ(chosen(gated(1, 53248, 16384)), swap16);          // Llama-3 405B: 832, last 40, 90 %
  EXPECT_EQ(chosen(gated(1, 8192, 2048)), swap16);            // Llama-3.2 1B: 128 tiles, one wave
  EXPECT_EQ(chosen(gated(34, 4672, 6592)), swap32_stream_k);  // 146 tiles, last 14
  EXPECT_EQ(chosen(gated(6, 26560, 1728)), swap16);           // 415 tiles, last 19, but K < 2048
  EXPECT_EQ(chosen(gated(7, 13120, 3264)), swap16);           // 205 tiles, last 73
  EXPECT_EQ(chosen_on(epifuse::detail::h100(), gated(7, 13120, 3264)), swap32) << "not measured on HBM3";
  std::vector<KernelKey> without_swap16;
  for (const KernelKey& k : kernel_table()) {
    if (name(k) != swap16) without_swap16.push_back(k);
  }
  EXPECT_EQ(chosen(gated(7, 13120, 3264), without_swap16), swap32) << "a build without the 16-token tile";
  EXPECT_EQ(chosen(gated(2, 13440, 14336)), swap32_stream_k); // 210 tiles, last 78, K 14336
}

// Past one wave with the last at least half full, where CUTLASS's heuristic mode runs every tile
// whole: on HBM3e at up to 64 tokens, with K >= 8192 and whole tiles filling their waves below 92 %,
// the stream-K twin in the share-tail mode (the last two waves' tiles share their K loops).
TEST(GatedMlpHeuristics, DecodeSharesTheLastTwoWavesWithALongK) {
  const std::string swap16 = "sm90_gated_mlp_bf16_bf16_swap_coop_128x16x128_c1x1";
  const std::string swap32 = "sm90_gated_mlp_bf16_bf16_swap_coop_128x32x128_c1x1";
  const std::string shared = swap32 + "_streamk stream_k=share_tail";
  EXPECT_EQ(launched(gated(1, 12736, 62080)), shared) << "199 tiles, 75 %";
  EXPECT_EQ(launched(gated(5, 14336, 10432)), shared) << "224 tiles, 85 %";
  EXPECT_EQ(launched(gated(1, 14336, 8192)), shared) << "K 8192";
  EXPECT_EQ(launched(gated(1, 14336, 4096)), swap16) << "Llama-3 8B: K under 8192";
  EXPECT_EQ(launched(gated(5, 16448, 10944)), swap16) << "257 tiles, 97 %";
  EXPECT_EQ(launched(gated(3, 21120, 32896)), shared) << "330 tiles, 83 %";
  EXPECT_EQ(launched(gated(57, 10624, 45440)), shared) << "two token tiles: 332 tiles";
  EXPECT_EQ(launched(gated(3, 9088, 31744)), swap32 + "_streamk") << "142 tiles, last 10: the heuristic mode shares";
  EXPECT_EQ(launched(gated(2, 8192, 49600)), swap16) << "128 tiles: one wave";
  const DeviceCaps h100 = epifuse::detail::h100();
  EXPECT_EQ(chosen_on(h100, gated(1, 12736, 62080)), swap32) << "not measured on HBM3";
  // Without the stream-K kernels among the candidates (a call without workspace): whole tiles.
  std::vector<KernelKey> whole;
  for (const KernelKey& k : kernel_table()) {
    if (k.decomposition == Decomposition::kDataParallel) whole.push_back(k);
  }
  EXPECT_EQ(chosen(gated(1, 12736, 62080), whole), swap32);
}

// One 128-token tile past one wave of weight tiles: the swapped 128x128 stream-K where the last
// wave holds under a fifth of the 132 SMs and K >= 4096; pingpong 128x128 whole tiles elsewhere.
// At 65-80 tokens the 80-token tile runs either way.
TEST(GatedMlpHeuristics, OneTokenTileSharesAShortLastWave) {
  const char* pingpong = "sm90_gated_mlp_bf16_bf16_pingpong_128x128x64_c1x2";
  const char* swap128_stream_k = "sm90_gated_mlp_bf16_bf16_swap_coop_128x128x64_c1x1_streamk";
  for (const std::int64_t M : {81, 89, 96, 101, 121, 128}) {
    EXPECT_EQ(chosen(gated(M, 17920, 5120)), swap128_stream_k) << M;  // Phi-3 medium: 280 tiles, last 16
  }
  for (const std::int64_t M : {65, 69, 80}) {
    EXPECT_EQ(chosen(gated(M, 17920, 5120)), "sm90_gated_mlp_bf16_bf16_swap_coop_128x80x64_c2x1") << M;
  }
  EXPECT_EQ(chosen(gated(110, 8832, 13376)), swap128_stream_k);  // 138 tiles, last 6
  EXPECT_EQ(chosen(gated(101, 10112, 4096)), swap128_stream_k);  // 158 tiles, last 26 (a fifth: 26.4)
  EXPECT_EQ(chosen(gated(121, 10176, 4096)), pingpong);          // 159 tiles, last 27
  EXPECT_EQ(chosen(gated(121, 10112, 4032)), pingpong);          // K < 4096
  EXPECT_EQ(chosen(gated(101, 8448, 8192)), pingpong);           // 132 tiles: one full wave
  EXPECT_EQ(chosen(gated(121, 18944, 3584)), pingpong);          // Qwen2.5-7B: last 32, K < 4096
  EXPECT_EQ(chosen(gated(123, 9088, 1600)), pingpong);           // last 10, K < 4096
  EXPECT_EQ(chosen(gated(121, 28672, 8192)), pingpong);          // Llama-3 70B: last 52
  EXPECT_EQ(chosen(gated(121, 14336, 4096)), pingpong);          // Llama-3 8B: last 92
  // At 97-112 tokens those whole tiles run as one 112-token pingpong tile (PingpongTilesOf112Tokens).
  EXPECT_EQ(chosen(gated(101, 28672, 8192)), "sm90_gated_mlp_bf16_bf16_swap_pingpong_128x112x64_c2x1");
  EXPECT_NE(chosen(gated(129, 17920, 5120)), swap128_stream_k);  // two token tiles: other rules
}

// At 129-144 tokens past 3.4 waves of weight tiles with K >= 8192, the 160-token stream-K kernel
// shares its tail where one 144-token tile per weight tile keeps the SMs under 92 % busy over its
// waves (Qwen2.5-72B: 462 tiles, 88 %; Llama-3 405B: 832, 90 %); the 144-token tile where they are
// busier (1008 tiles, 95 %) or K is shorter, and the rules around it elsewhere.
TEST(GatedMlpHeuristics, The160TokenStreamKSharesItsTailPast3Point4Waves) {
  const std::string shared = "sm90_gated_mlp_bf16_bf16_swap_coop_128x160x64_c2x1_streamk stream_k=share_tail";
  const std::string whole144 = "sm90_gated_mlp_bf16_bf16_swap_coop_128x144x64_c2x1";
  EXPECT_EQ(launched(gated(129, 29568, 8192)), shared);
  EXPECT_EQ(launched(gated(144, 29568, 8192)), shared);
  EXPECT_EQ(launched(gated(140, 53248, 16384)), shared);
  EXPECT_EQ(launched(gated(131, 28800, 8192)), shared) << "the GPU suite's case";
  EXPECT_EQ(launched(gated(134, 64512, 9216)), whole144) << "1008 tiles: 95 % busy";
  EXPECT_EQ(launched(gated(137, 31744, 6144)), whole144) << "K 6144";
  EXPECT_EQ(launched(gated(141, 28672, 8192)), "sm90_gated_mlp_bf16_bf16_swap_coop_128x160x64_c2x1_streamk")
      << "Llama-3 70B: 448 tiles, within 3.4 waves";
  EXPECT_EQ(launched(gated(145, 29568, 8192)), "sm90_gated_mlp_bf16_bf16_swap_pingpong_128x96x64_c1x2");
}

// A stream-K choice whose tiles make less than one wave shares them all (StreamKMode::kShareTail)
// where the wave model prices that below whole tiles; CUTLASS's heuristic mode runs them whole
// wherever they fill half the SMs, and shares them itself below half. The swapped 128x32 runs
// whole tiles instead where they make one wave at least half full.
TEST(GatedMlpHeuristics, StreamKSharesOneWaveWhereItPays) {
  const std::string prefix = "sm90_gated_mlp_bf16_bf16_";
  EXPECT_EQ(launched(gated(300, 2560, 16384)), prefix + "swap_coop_128x160x64_c2x1_streamk stream_k=share_tail");
  EXPECT_EQ(launched(gated(1587, 512, 28544)), prefix + "swap_coop_128x160x64_c2x1_streamk stream_k=share_tail");
  // 116 tiles of 128x128 and K 17088: the model prices sharing above whole tiles.
  EXPECT_EQ(launched(gated(3651, 256, 17088)), prefix + "swap_coop_128x128x64_c1x1_streamk");
  EXPECT_EQ(launched(gated(9, 320, 9536)), prefix + "swap_coop_128x32x128_c1x1_streamk");    // 5 tiles: shared either way
  EXPECT_EQ(launched(gated(3, 9088, 31744)), prefix + "swap_coop_128x32x128_c1x1_streamk");  // 142 tiles: past one wave
  EXPECT_EQ(launched(gated(13, 4992, 31360)), prefix + "swap_coop_128x16x128_c1x1");         // 78 tiles: whole
  EXPECT_EQ(launched(gated(2, 2368, 29888)), prefix + "swap_coop_128x32x128_c1x1_streamk");  // 37 tiles: shared
  EXPECT_EQ(launched(gated(1, 6400, 11456)), prefix + "swap_coop_128x16x128_c1x1");          // 100 tiles: whole
}

// At most 127 packed-weight tiles at 449-4096 tokens (129-4096 with K < 1792): the kernel the wave
// model finds cheapest. The shapes are from the sweeps the model was fitted to or checked against
// (bench/results/tuning/issue9/few-weight-tiles/ and few-weight-tiles-129-448/),
// each with the kernel it picks there and, in the comment, that kernel's time against the fastest
// swept kernel's and the rules' choice.
TEST(GatedMlpHeuristics, FewWeightTilesTakeTheModelsKernel) {
  struct Case {
    std::int64_t M, N, K;
    const char* kernel;
  };
  const Case expected[] = {
      {1175, 1280, 35904, "swap_coop_128x208x64_c2x1"},          // the fastest; the rules' stream-K 0.78x
      {1229, 1792, 4416, "swap_coop_128x144x64_c2x1"},           // the fastest; the 128-token pair 0.80x
      {858, 1280, 6208, "swap_coop_128x144x64_c2x1"},            // the fastest; the unswapped pingpong 0.54x
      {2268, 1536, 10944, "swap_coop_128x208x64_c2x1"},          // the fastest; the 128-token pair 0.80x
      {605, 320, 1152, "swap_coop_128x32x128_c1x1"},             // the fastest; the unswapped pingpong 0.56x
      {937, 576, 1728, "swap_pingpong_128x96x64_c1x2"},          // the fastest; the 128-token pair 0.69x
      {2981, 2688, 1920, "pingpong_128x128x64_c1x2"},            // the fastest; the 128-token pair 0.95x
      {2409, 960, 51328, "swap_coop_128x128x64_c1x1_streamk"},   // the fastest, as before
      {1025, 2752, 10240, "swap_coop_128x176x64_c2x1"},          // the fastest; the unswapped pingpong 0.82x
      {3789, 7744, 320, "pingpong_128x128x64_c1x2"},             // 121 tiles: the fastest; the 128-token pair 0.74x
      {660, 6912, 37440, "swap_coop_128x224x64_c2x1_streamk"},   // 108 tiles: the fastest; the 128-token pair 0.86x
      {738, 3136, 4928, "swap_pingpong_128x96x64_c1x2"},         // 49 tiles: the fastest; the 128-token pair 0.87x
      // 129-448 tokens with K < 1792 (few-weight-tiles-129-448/, the rules' kernel's speed after it)
      {396, 1280, 1280, "swap_coop_128x32x128_c1x1"},            // the fastest; two 224-token tiles 0.70x
      {423, 320, 1408, "swap_coop_128x32x128_c1x1"},             // the fastest; two 224-token tiles 0.49x
      {196, 3200, 256, "pingpong_128x128x64_c1x2"},              // the fastest; one 224-token tile 0.87x
      {433, 1856, 448, "pingpong_128x128x64_c1x2"},              // the fastest; two 224-token tiles 0.86x
      {441, 2368, 512, "swap_coop_128x160x64_c2x1"},             // the fastest; two 224-token tiles 0.88x
      {148, 3712, 1600, "swap_pingpong_128x96x64_c1x2"},         // the fastest; one 160-token tile 0.88x
      // The 128x32 only within two waves of its tiles (sweep-suite-5c08106/, its speed after it)
      {176, 5056, 960, "swap_coop_128x176x64_c2x1"},             // 3.6 waves: the 128x32 0.85x
      {388, 3072, 1664, "swap_coop_128x208x64_c2x1"},            // 4.7 waves: the 128x32 0.77x
      // The unswapped pingpong past one wave yields to 224-token tiles in one (its speed after it)
      {421, 3200, 1152, "swap_coop_128x224x64_c2x1"},            // 1.5 waves: the pingpong 0.86x
      {438, 2880, 1472, "swap_coop_128x224x64_c2x1"},            // 1.4 waves: the pingpong 0.84x
      {396, 3008, 512, "swap_coop_128x224x64_c2x1"},             // not two 208-token tiles
      {374, 4544, 512, "pingpong_128x128x64_c1x2"},              // no wide kernel in one wave: the fastest
      {448, 2048, 4096, "swap_coop_128x224x64_c2x1"},            // K >= 1792 below 449 tokens: the rules
      {4097, 1024, 4096, "pingpong_128x128x64_c1x2"},            // above it
      // 449-1024 tokens with K >= 16384 on 128-768 weight tiles (long-k-449-1024/)
      {688, 10240, 35264, "swap_coop_128x176x64_c2x1"},          // the fastest; the 128-token pair 0.86x
      {946, 30592, 28800, "swap_coop_128x160x64_c2x1"},          // the fastest; the 128-token pair 0.95x
      {1004, 45056, 13056, "swap_pingpong_128x128x64_c1x2"},     // K under 16384: the rules
      {1025, 10240, 35264, "pingpong_128x128x64_c1x2"},          // past 1024 tokens: the rules
      {1000, 53248, 16384, "swap_pingpong_128x128x64_c1x2"},     // Llama-3 405B, 832 tiles: the rules
  };
  for (const Case& c : expected) {
    EXPECT_EQ(chosen(gated(c.M, c.N, c.K)), std::string("sm90_gated_mlp_bf16_bf16_") + c.kernel)
        << c.M << "x" << c.N << "x" << c.K;
  }
  // 128 weight tiles (N = 8192, Llama-3.2 1B) keep the rules (here the 128-token pair, which
  // pingpong160_pays turns into 160-token tiles) at 1229 tokens, where 127 take the model's
  // unswapped pingpong. So do the shapes the delegation rule takes, for a call
  // without the product's workspace (sweep-delegated.json: the model's 128x32 ran 0.33x cuBLASLt +
  // act·mul at 655x448x22208, the rules' stream-K 0.65x).
  const DeviceCaps h100 = epifuse::detail::h100();
  KernelChoice on_h100;
  ASSERT_TRUE(select(gated(688, 10240, 35264), h100, kernel_table(), &on_h100).ok());
  EXPECT_EQ(name(on_h100.key), "sm90_gated_mlp_bf16_bf16_swap_pingpong_128x128x64_c1x2")
      << "449-1024 tokens, K >= 16384: the rules on an H100";
  EXPECT_EQ(chosen(gated(1229, 8192, 4416)), "sm90_gated_mlp_bf16_bf16_swap_pingpong_128x160x64_c2x1")
      << "the rules, then pingpong160_pays";
  EXPECT_EQ(chosen(gated(1229, 8128, 4416)), "sm90_gated_mlp_bf16_bf16_pingpong_128x128x64_c1x2");
  EXPECT_EQ(chosen(gated(655, 448, 22208)), "sm90_gated_mlp_bf16_bf16_swap_coop_128x128x64_c1x1_streamk");
}

// Narrow weights with K >= 2048 run cuBLASLt + act·mul: up to 64 tokens when the packed weight has
// fewer 128-row tiles than a quarter of the 132 SMs, beyond when those tiles times the 128-token
// tiles are at most three quarters of them. So do bf16 calls of 129-4096 tokens on at most 127
// weight tiles with K >= 1792, up to 8 waves of those tiles (on an H200 from 1024 tokens 2.5).
// Never a catalogue model's MLP; never a forced kernel; not where the warp-mma kernel runs (1-8
// tokens with K < 16384 off HBM3, WarpMmaRunsWithinOneWaveOfItsSingles).
TEST(GatedMlpHeuristics, DelegatesNarrowWeightsWithALongK) {
  const DeviceCaps h = hopper();
  const auto pays = [](const GatedMlpArgs& a, const DeviceCaps& caps) {
    return gated_delegation_pays(a, caps, kernel_table());
  };
  EXPECT_TRUE(pays(gated(9, 320, 9536), h));
  EXPECT_TRUE(pays(gated(1, 320, 16384), h)) << "K past the warp-mma rule";
  EXPECT_FALSE(pays(gated(1, 320, 9536), h)) << "the warp-mma kernel";
  EXPECT_TRUE(pays(gated(1, 320, 9536), h100())) << "HBM3: the warp-mma rule is off";
  EXPECT_TRUE(pays(gated(64, 2048, 2048), h));      // 32 weight tiles
  EXPECT_FALSE(pays(gated(64, 2112, 2048), h));     // 33
  EXPECT_FALSE(pays(gated(9, 320, 2040), h));       // K below 2048
  EXPECT_TRUE(pays(gated(783, 256, 5184), h));      // 4 x 7 tiles
  EXPECT_TRUE(pays(gated(1536, 512, 28544), h));    // 8 x 12 = 96 <= 99
  EXPECT_TRUE(pays(gated(1537, 512, 28544), h)) << "8 x 13 = 104 tiles, but few weight tiles";
  EXPECT_TRUE(pays(gated(1537, 512, 28544), h100()));
  EXPECT_TRUE(pays(gated(1408, 1920, 3392), h)) << "30 x 11 = 330 tiles: 2.5 waves";
  EXPECT_FALSE(pays(gated(1409, 1920, 3392), h)) << "30 x 12: past 2.5 waves on an H200";
  EXPECT_TRUE(pays(gated(1409, 1920, 3392), h100())) << "within 8 waves on an H100";
  EXPECT_TRUE(pays(gated(1023, 6144, 4096), h)) << "96 x 8: below 1024 tokens 8 waves";
  EXPECT_TRUE(pays(gated(4096, 512, 28544), h100()));
  EXPECT_FALSE(pays(gated(4097, 512, 28544), h100())) << "past 4096 tokens";
  EXPECT_TRUE(pays(gated(1408, 6144, 4096), h100()));    // 96 x 11 = 1056 tiles: 8 waves
  EXPECT_FALSE(pays(gated(1409, 6144, 4096), h100()));   // 96 x 12: past 8 waves
  EXPECT_FALSE(pays(gated(65, 8192, 2048), h));     // Llama-3.2 1B: 128 tiles
  EXPECT_FALSE(pays(gated(1, 14336, 4096), h));
  EXPECT_TRUE(pays(gated(957, 1920, 9664), h));     // 30 weight tiles x 8
  EXPECT_TRUE(pays(gated(1024, 1920, 9664), h));    // 30 x 8
  EXPECT_FALSE(pays(gated(2826, 2304, 6208), h)) << "36 x 23 tiles: 6.3 waves";
  EXPECT_FALSE(pays(gated(957, 1920, 9664, DType::kFP16), h)) << "fp16: not measured";
  EXPECT_TRUE(pays(gated(129, 8128, 1792), h));     // 127 weight tiles, K 1792
  EXPECT_FALSE(pays(gated(129, 8192, 1792), h));    // 128
  EXPECT_FALSE(pays(gated(957, 1920, 1728), h));    // K below 1792
  EXPECT_FALSE(pays(gated(128, 1920, 1792), h));    // 128 tokens, 30 x 1 tiles but K below 2048
  DeviceCaps unknown = h;
  unknown.dram_gbps = 0;
  EXPECT_FALSE(pays(gated(2826, 2304, 6208), unknown)) << "DRAM bandwidth unknown: as an H200";
  EXPECT_TRUE(pays(gated(2826, 2304, 6208), h100()));
  GatedMlpArgs forced = gated(783, 256, 5184);
  forced.kernel = KernelChoice{key_named("sm90_gated_mlp_bf16_bf16_coop_128x256x64_c1x2")};
  EXPECT_FALSE(pays(forced, h));
  DeviceCaps ampere = h;
  ampere.cc_major = 8;
  EXPECT_FALSE(pays(gated(783, 256, 5184), ampere)) << "no kernels there: dispatch says so";
}

// An H100 runs gated calls of more than 1024 tokens with K >= 5120 on the cooperative 128x256 1x2
// where the other rules pick a pingpong 128x128; an H200, or an unknown bandwidth, keeps them.
TEST(GatedMlpHeuristics, LongKOnAnH100TakesTheCooperative128x256) {
  const DeviceCaps h100 = epifuse::detail::h100();
  DeviceCaps unknown = hopper();
  unknown.dram_gbps = 0;
  const std::string cooperative = "sm90_gated_mlp_bf16_bf16_coop_128x256x64_c1x2";
  const std::string pingpong = "sm90_gated_mlp_bf16_bf16_pingpong_128x128x64_c1x2";
  const std::string swapped_pingpong = "sm90_gated_mlp_bf16_bf16_swap_pingpong_128x128x64_c1x2";
  EXPECT_EQ(chosen_on(hopper(), gated(3153, 12992, 28544)), pingpong);
  EXPECT_EQ(chosen_on(unknown, gated(3153, 12992, 28544)), pingpong);
  EXPECT_EQ(chosen_on(h100, gated(3153, 12992, 28544)), cooperative);
  EXPECT_EQ(chosen_on(hopper(), gated(4096, 28672, 8192)), swapped_pingpong);
  EXPECT_EQ(chosen_on(h100, gated(4096, 28672, 8192)), cooperative);
  EXPECT_EQ(chosen_on(h100, gated(16384, 28672, 8192)), cooperative);
  EXPECT_EQ(chosen_on(h100, gated(1025, 17920, 5120)), cooperative);
  EXPECT_EQ(chosen_on(h100, gated(1024, 17920, 5120)), swapped_pingpong) << "1024 tokens";
  EXPECT_EQ(chosen_on(h100, gated(8192, 14336, 5056)), pingpong) << "K under 5120";
  EXPECT_EQ(chosen_on(h100, gated(16384, 14336, 4096)), pingpong) << "Llama-3 8B";
  EXPECT_EQ(chosen_on(h100, gated(2500, 5120, 5120)), "sm90_gated_mlp_bf16_bf16_swap_coop_128x144x64_c2x1")
      << "only the pingpong picks change";
  EXPECT_EQ(chosen_on(h100, gated(8000, 640, 12288)), pingpong) << "a weight under 32 MiB";
  EXPECT_EQ(chosen_on(h100, gated(8000, 704, 12288)), cooperative) << "33 MiB";
  EXPECT_EQ(chosen_on(h100, gated(8000, 384, 30720)), pingpong) << "1024 rows of 512-row clusters against 768";
  EXPECT_EQ(chosen_on(h100, gated(4703, 1088, 11520)), cooperative) << "2560 rows against 2304";
  // Along the tokens in groups of 4 clusters where their tiles outnumber the weight's clusters twice.
  const auto knobs = [](const GatedMlpArgs& a, const DeviceCaps& caps) {
    KernelChoice choice;
    EXPECT_TRUE(select(a, caps, kernel_table(), &choice).ok());
    return to_string(choice);
  };
  EXPECT_EQ(knobs(gated(16329, 14784, 19904), h100), cooperative + " raster=along_m swizzle=4");
  EXPECT_EQ(knobs(gated(12000, 4096, 8192), h100), cooperative + " raster=along_m swizzle=4") << "94 token tiles, 16 clusters";
  EXPECT_EQ(knobs(gated(12000, 2048, 8192), h100), cooperative + " raster=along_m swizzle=4") << "8 clusters";
  EXPECT_EQ(knobs(gated(12000, 1792, 8192), h100), cooperative) << "7 clusters";
  EXPECT_EQ(knobs(gated(8192, 28672, 8192), h100), cooperative) << "64 token tiles, 112 clusters";
  EXPECT_EQ(knobs(gated(16384, 28672, 8192), h100), cooperative) << "128 token tiles, 112 clusters";
  EXPECT_EQ(knobs(gated(14336, 28672, 8192), h100), cooperative) << "112 and 112";
  EXPECT_EQ(knobs(gated(28545, 28672, 8192), h100), cooperative + " raster=along_m swizzle=4") << "224 and 112";
  EXPECT_EQ(knobs(gated(16329, 14784, 19904), hopper()), pingpong) << "an H200";
}

// An H100 runs 1025-4096 tokens with K of 2048-5119 that leave a 128-row tile partial on the
// swapped cooperative 160- or 224-token tiles, whichever computes fewer rows, where the other rules
// pick a pingpong 128x128 that computes as many rows or more (160-token tiles then run as the
// pingpong 128x160, pingpong160_pays); an H200 keeps the pingpong 128x128 unless 160 pays.
TEST(GatedMlpHeuristics, PartialTokenTilesOnAnH100TakeTheSwapped160Or224) {
  const DeviceCaps h100 = epifuse::detail::h100();
  const std::string pingpong160 = "sm90_gated_mlp_bf16_bf16_swap_pingpong_128x160x64_c2x1";
  const std::string swapped224 = "sm90_gated_mlp_bf16_bf16_swap_coop_128x224x64_c2x1";
  const std::string pingpong = "sm90_gated_mlp_bf16_bf16_pingpong_128x128x64_c1x2";
  const std::string swapped_pingpong = "sm90_gated_mlp_bf16_bf16_swap_pingpong_128x128x64_c1x2";
  EXPECT_EQ(chosen_on(h100, gated(1100, 8320, 2048)), pingpong160) << "1120 rows against 1152";
  EXPECT_EQ(chosen_on(hopper(), gated(1100, 8320, 2048)), pingpong160) << "pingpong160_pays";
  EXPECT_EQ(chosen_on(h100, gated(1300, 8320, 2112)), swapped224) << "1344 rows against 1408";
  EXPECT_EQ(chosen_on(h100, gated(1949, 50240, 3584)), swapped224);
  EXPECT_EQ(chosen_on(h100, gated(2376, 20288, 5056)), pingpong160) << "K under 5120";
  EXPECT_EQ(chosen_on(h100, gated(1025, 17920, 5120)), "sm90_gated_mlp_bf16_bf16_coop_128x256x64_c1x2") << "K 5120";
  EXPECT_EQ(chosen_on(h100, gated(944, 8192, 3072)), pingpong160) << "1024 tokens or fewer: pingpong160_pays alone";
  EXPECT_EQ(chosen_on(h100, gated(2048, 14336, 4096)), swapped_pingpong) << "whole 128-row tiles";
  EXPECT_EQ(chosen_on(h100, gated(1144, 15424, 1792)), pingpong) << "K under 2048";
}

// Up to 2304 tokens, where the swapped tiles would compute more rows than that pingpong, an H100
// runs the cooperative 128x256 1x2 instead; an H200 keeps the pingpong.
TEST(GatedMlpHeuristics, PartialTokenTilesOnAnH100TakeTheCooperative128x256WhereThePingpongStays) {
  const DeviceCaps h100 = epifuse::detail::h100();
  const std::string cooperative = "sm90_gated_mlp_bf16_bf16_coop_128x256x64_c1x2";
  const std::string pingpong = "sm90_gated_mlp_bf16_bf16_pingpong_128x128x64_c1x2";
  const std::string swapped_pingpong = "sm90_gated_mlp_bf16_bf16_swap_pingpong_128x128x64_c1x2";
  EXPECT_EQ(chosen_on(h100, gated(1500, 8192, 2048)), cooperative) << "1568 rows of 224 against 1536";
  EXPECT_EQ(chosen_on(hopper(), gated(1500, 8192, 2048)), swapped_pingpong);
  EXPECT_EQ(chosen_on(h100, gated(1400, 8320, 2048)), cooperative) << "1440 rows of 160 against 1408";
  EXPECT_EQ(chosen_on(h100, gated(2298, 5888, 4416)), cooperative) << "the wave model's pingpong (92 weight tiles)";
  EXPECT_EQ(chosen_on(h100, gated(1831, 29632, 2112)), "sm90_gated_mlp_bf16_bf16_swap_pingpong_128x160x64_c2x1")
      << "1920 rows of 160 against 1920: the swapped tiles, as the pingpong 128x160";
  EXPECT_EQ(chosen_on(h100, gated(2940, 17728, 2816)), pingpong) << "past 2304 tokens";
  EXPECT_EQ(chosen_on(h100, gated(2176, 14336, 4096)), pingpong) << "whole 128-row tiles";
  EXPECT_EQ(chosen_on(h100, gated(1150, 15040, 1984)), pingpong) << "K under 2048";
  KernelChoice choice;
  ASSERT_TRUE(select(gated(2300, 14336, 4096), h100, kernel_table(), &choice).ok());
  EXPECT_EQ(to_string(choice), cooperative) << "the default raster, where K >= 5120 would walk along the tokens";
}

// 257-4096 tokens with K of 2048-8192 on more than 127 weight tiles take the swapped pingpong
// 128x160 2x1 where its tiles compute fewer rows than the pingpong 128x128 or cooperative 160-token
// tiles the rules pick, or as many (off HBM3 only with K under 5120).
TEST(GatedMlpHeuristics, PingpongTilesOf160Tokens) {
  const std::string pingpong160 = "sm90_gated_mlp_bf16_bf16_swap_pingpong_128x160x64_c2x1";
  const std::string pingpong = "sm90_gated_mlp_bf16_bf16_pingpong_128x128x64_c1x2";
  const std::string swapped_pingpong = "sm90_gated_mlp_bf16_bf16_swap_pingpong_128x128x64_c1x2";
  const DeviceCaps h100 = epifuse::detail::h100();
  EXPECT_EQ(chosen(gated(594, 14336, 4096)), pingpong160) << "640 rows either way, K under 5120";
  EXPECT_EQ(chosen(gated(594, 28672, 8192)), pingpong) << "640 rows either way, K 8192";
  EXPECT_EQ(chosen(gated(944, 28672, 8192)), pingpong160) << "960 rows against 1024";
  EXPECT_EQ(chosen(gated(293, 49344, 2368)), pingpong160) << "the cooperative 160-token tiles' rows";
  EXPECT_EQ(chosen(gated(503, 11968, 2240)), swapped_pingpong) << "640 rows against 512";
  EXPECT_EQ(chosen(gated(944, 14336, 8256)), swapped_pingpong) << "K past 8192";
  EXPECT_EQ(chosen(gated(944, 14336, 1984)), swapped_pingpong) << "K under 2048";
  EXPECT_EQ(chosen(gated(4097, 14336, 4096)), pingpong) << "past 4096 tokens";
  EXPECT_NE(chosen(gated(944, 8128, 3072)), pingpong160) << "127 weight tiles: the wave model's pick";
  EXPECT_EQ(chosen(gated(944, 8192, 3072)), pingpong160) << "128 weight tiles";
  EXPECT_EQ(chosen_on(h100, gated(594, 14336, 4096)), pingpong160) << "an H100";
  EXPECT_EQ(chosen_on(h100, gated(594, 28672, 8192)), pingpong160) << "an H100 takes ties at K 8192";
  EXPECT_EQ(chosen_on(h100, gated(1300, 8320, 2112)), "sm90_gated_mlp_bf16_bf16_swap_coop_128x224x64_c2x1")
      << "224-token tiles stay";
}

// Off HBM3 with K >= 2048: one 112-token pingpong tile at 97-112 tokens past one wave of weight
// tiles where the pingpong 128x128 would run; not two at 193-224 tokens.
TEST(GatedMlpHeuristics, PingpongTilesOf112Tokens) {
  const std::string pingpong112 = "sm90_gated_mlp_bf16_bf16_swap_pingpong_128x112x64_c2x1";
  const std::string pingpong = "sm90_gated_mlp_bf16_bf16_pingpong_128x128x64_c1x2";
  EXPECT_EQ(chosen(gated(104, 18944, 3584)), pingpong112) << "Qwen2.5-7B: 296 weight tiles";
  EXPECT_EQ(chosen(gated(97, 8960, 2048)), pingpong112) << "140 weight tiles, K 2048";
  EXPECT_EQ(chosen(gated(104, 8192, 3072)), pingpong) << "Llama-3.2 3B: 128 weight tiles, one wave";
  EXPECT_EQ(chosen(gated(104, 18944, 1984)), pingpong) << "K under 2048";
  EXPECT_EQ(chosen(gated(113, 18944, 3584)), pingpong) << "113 tokens";
  EXPECT_EQ(chosen(gated(104, 17920, 5120)), "sm90_gated_mlp_bf16_bf16_swap_coop_128x128x64_c1x1_streamk")
      << "Phi-3 medium: the stream-K rule's pick stays";
  EXPECT_EQ(chosen(gated(221, 29568, 8192)), "sm90_gated_mlp_bf16_bf16_swap_pingpong_128x128x64_c1x2")
      << "Qwen2.5-72B at 221 tokens: the 128-token pair stays";
  const DeviceCaps h100 = epifuse::detail::h100();
  EXPECT_NE(chosen_on(h100, gated(104, 18944, 3584)), pingpong112) << "not measured on HBM3";
  // A build without the 112-token kernel runs the rules' pingpong 128x128, not the fallback.
  std::vector<KernelKey> without112;
  for (const KernelKey& k : kernel_table()) {
    if (name(k) != pingpong112) without112.push_back(k);
  }
  EXPECT_EQ(chosen(gated(104, 18944, 3584), without112), pingpong);
}

// 321-352 tokens: the first launch times two 176-token tiles beside the rules' pick, never the
// pick itself, nor a forced call, nor a kernel the build lacks.
std::vector<std::string> alternatives(const GatedMlpArgs& a, const std::vector<KernelKey>& candidates = kernel_table()) {
  std::vector<std::string> names;
  for (const KernelChoice& c : gated_timed_alternatives(a, hopper(), candidates)) names.push_back(to_string(c));
  return names;
}

TEST(GatedMlpHeuristics, TimesTwo176TokenTilesAt321To352Tokens) {
  const std::string tiles176 = "sm90_gated_mlp_bf16_bf16_swap_coop_128x176x64_c2x1";
  for (const std::int64_t M : {321, 330, 336, 337, 352}) {
    EXPECT_EQ(alternatives(gated(M, 14336, 4096)), std::vector<std::string>{tiles176}) << M;
    EXPECT_EQ(alternatives(gated(M, 28672, 8192)), std::vector<std::string>{tiles176}) << M;
  }
  for (const std::int64_t M : {1, 104, 176, 320, 1024}) {
    EXPECT_TRUE(alternatives(gated(M, 14336, 4096)).empty()) << M;
  }
  for (const std::int64_t M : {321, 336, 352}) {
    for (const std::int64_t K : {256, 512, 1024, 4096}) {
      for (const std::int64_t N : {256, 1024, 4096, 18944}) {
        const GatedMlpArgs a = gated(M, N, K);
        for (const std::string& other : alternatives(a)) {
          EXPECT_NE(other, chosen(a)) << M << "x" << N << "x" << K << ": the rules' pick is timed first";
        }
      }
    }
  }
  GatedMlpArgs forced = gated(330, 14336, 4096);
  forced.kernel = KernelChoice{key_named(tiles176)};
  EXPECT_TRUE(alternatives(forced).empty()) << "a forced kernel";
  EXPECT_TRUE(alternatives(gated(330, 14336, 4096, DType::kFP16)).empty()) << "fp16 has no such kernel";
  std::vector<KernelKey> without176;
  for (const KernelKey& k : kernel_table()) {
    if (name(k) != tiles176) without176.push_back(k);
  }
  EXPECT_TRUE(alternatives(gated(330, 14336, 4096), without176).empty());
  // The GPU test's shapes (tests/gpu/gated_path_test.cpp): the rule delegates the first only.
  EXPECT_TRUE(gated_delegation_pays(gated(330, 1024, 2048), hopper(), kernel_table()));
  for (const GatedMlpArgs& a :
       {gated(330, 1024, 2048), gated(344, 768, 1536), gated(330, 8192, 1024), gated(331, 8192, 1024)}) {
    EXPECT_EQ(alternatives(a), std::vector<std::string>{tiles176}) << a.M << "x" << a.N << "x" << a.w.K;
  }
  for (const GatedMlpArgs& a : {gated(344, 768, 1536), gated(330, 8192, 1024), gated(331, 8192, 1024)}) {
    EXPECT_FALSE(gated_delegation_pays(a, hopper(), kernel_table())) << a.M << "x" << a.N << "x" << a.w.K;
  }
}

// 353-1023 tokens: the first launch times seven tilings, the rules' own pick left out, in `seven`'s
// order; a build without one of them times the others.
TEST(GatedMlpHeuristics, TimesSevenTilingsAt353To1023Tokens) {
  const std::vector<std::string> seven = {"sm90_gated_mlp_bf16_bf16_swap_pingpong_128x112x64_c2x1",
                                          "sm90_gated_mlp_bf16_bf16_swap_coop_128x176x64_c2x1",
                                          "sm90_gated_mlp_bf16_bf16_swap_coop_128x224x64_c2x1",
                                          "sm90_gated_mlp_bf16_bf16_swap_pingpong_128x96x64_c1x2",
                                          "sm90_gated_mlp_bf16_bf16_swap_pingpong_128x128x64_c1x2",
                                          "sm90_gated_mlp_bf16_bf16_swap_pingpong_128x160x64_c2x1",
                                          "sm90_gated_mlp_bf16_bf16_pingpong_128x128x64_c1x2"};
  const auto without = [&](const std::string& pick) {
    std::vector<std::string> others;
    for (const std::string& n : seven) {
      if (n != pick) others.push_back(n);
    }
    return others;
  };
  for (const std::int64_t M : {353, 403, 513, 576, 577, 645, 696, 768, 769, 813, 947, 1023}) {
    for (const std::int64_t K : {256, 1024, 4096, 16384}) {
      for (const std::int64_t N : {256, 2048, 8192, 14336, 29568}) {
        const GatedMlpArgs a = gated(M, N, K);
        EXPECT_EQ(alternatives(a), without(chosen(a))) << M << "x" << N << "x" << K;
      }
    }
  }
  EXPECT_EQ(chosen(gated(813, 14336, 4096)), seven[6]) << "the unswapped pingpong is among the rules' picks";
  EXPECT_EQ(chosen(gated(645, 14336, 4096)), seven[4]) << "as are the swapped 128-token pairs";
  for (const std::int64_t M : {1024, 1025, 2048}) {
    EXPECT_TRUE(alternatives(gated(M, 14336, 4096)).empty()) << M << ": outside the band";
  }
  GatedMlpArgs forced = gated(645, 14336, 4096);
  forced.kernel = KernelChoice{key_named(seven[0])};
  EXPECT_TRUE(alternatives(forced).empty()) << "a forced kernel";
  EXPECT_TRUE(alternatives(gated(645, 14336, 4096, DType::kFP16)).empty()) << "fp16 has none of these kernels";
  std::vector<KernelKey> without112;
  for (const KernelKey& k : kernel_table()) {
    if (name(k) != seven[0]) without112.push_back(k);
  }
  EXPECT_EQ(alternatives(gated(645, 14336, 4096), without112),
            (std::vector<std::string>{seven[1], seven[2], seven[3], seven[5], seven[6]}));
  // The GPU test's shape (tests/gpu/gated_path_test.cpp).
  EXPECT_EQ(alternatives(gated(645, 8192, 1024)), without(seven[4]));
  EXPECT_FALSE(gated_delegation_pays(gated(645, 8192, 1024), hopper(), kernel_table()));
}

// More than 4096 tokens: the wave model for narrow weights with K >= 32768, and the swapped pingpong
// where the unswapped one's 1x2 cluster pads an odd count of weight tiles by 4 % or more.
TEST(GatedMlpHeuristics, ManyTokensPadTheFewestTilesAndModelLongNarrowWeights) {
  const std::string pingpong = "sm90_gated_mlp_bf16_bf16_pingpong_128x128x64_c1x2";
  const std::string swapped_pingpong = "sm90_gated_mlp_bf16_bf16_swap_pingpong_128x128x64_c1x2";
  EXPECT_EQ(chosen(gated(13706, 320, 1024)), swapped_pingpong) << "5 weight tiles padded to 6";
  EXPECT_EQ(chosen(gated(11922, 704, 6912)), swapped_pingpong) << "11 to 12";
  EXPECT_EQ(chosen(gated(8192, 1600, 4096)), swapped_pingpong) << "25 to 26: 4 %";
  EXPECT_EQ(chosen(gated(8192, 1728, 4096)), pingpong) << "27 to 28: 3.7 %";
  EXPECT_EQ(chosen(gated(8193, 1600, 4096)), pingpong) << "65 token tiles: the swapped kernel pads them to 66";
  EXPECT_EQ(chosen(gated(4592, 1728, 320)), pingpong) << "a K loop under 1024";
  EXPECT_EQ(chosen(gated(13706, 320, 960)), pingpong) << "a K loop under 1024";
  EXPECT_EQ(chosen(gated(4096, 704, 6912)), pingpong) << "4096 tokens: the few-weight-tile model's choice";
  EXPECT_EQ(chosen(gated(16384, 14336, 4096)), pingpong) << "Llama-3 8B: an even count";
  EXPECT_EQ(chosen(gated(6933, 256, 56512)), "sm90_gated_mlp_bf16_bf16_swap_coop_128x224x64_c2x1");
  EXPECT_EQ(chosen(gated(6688, 640, 49728)), "sm90_gated_mlp_bf16_bf16_swap_coop_128x160x64_c2x1_streamk");
  EXPECT_EQ(chosen(gated(5481, 960, 38208)), "sm90_gated_mlp_bf16_bf16_swap_coop_128x128x64_c1x1_streamk")
      << "645 tiles of 128x128: 4.9 waves";
  EXPECT_EQ(chosen(gated(11882, 1472, 54592)), pingpong) << "2139 tiles: 16 waves";
  EXPECT_EQ(chosen(gated(12521, 1216, 49728)), swapped_pingpong) << "past 10 waves, 19 weight tiles padded to 20";
  EXPECT_EQ(chosen(gated(5368, 1408, 27264)), pingpong) << "K under 32768";
  EXPECT_EQ(chosen(gated(8192, 2112, 40000)), pingpong) << "33 weight tiles, 34 padded: 3 %";
  // An H100 keeps its cooperative kernel on the model's calls; the swapped pingpong where that
  // rule leaves the pingpong (weights under 32 MiB).
  const DeviceCaps h100 = epifuse::detail::h100();
  const auto on_h100 = [&](const GatedMlpArgs& a) {
    KernelChoice choice;
    const Status s = select(a, h100, kernel_table(), &choice);
    return s.ok() ? name(choice.key) : s.to_string();
  };
  EXPECT_EQ(on_h100(gated(6030, 1600, 39680)), "sm90_gated_mlp_bf16_bf16_coop_128x256x64_c1x2");
  EXPECT_EQ(on_h100(gated(14344, 128, 41792)), pingpong) << "the model is for HBM3e";
  EXPECT_EQ(on_h100(gated(4354, 448, 11136)), swapped_pingpong) << "20 MB";
  EXPECT_EQ(on_h100(gated(15071, 448, 37440)), "sm90_gated_mlp_bf16_bf16_coop_128x256x64_c1x2") << "64 MB";
}

// Bias + activation calls cuBLASLt cannot fuse at 9-64 tokens on weights of at least 4 MiB: on
// the 128x32 kernel's at most 33 tiles, or 49 with K >= 6144, or 133-176 whole tiles of K under
// 4096 (132 SMs); on the warp-mma kernels, rows of at least 16384 at 9-16 tokens and rows of 16
// tokens reading at least 16 MiB at 17-64. At 1-8 tokens, 133-220 whole 128x32 tiles, and on an
// H200 (not an H100) the warp-mma kernel's rows past 16384 on 1024-4095 of them, past 32768 on
// 512-1023. In bf16 every call of 65-255 tokens, and of 256-1023 with K >= 1024.
TEST(GemmHeuristics, DelegatesBiasActivationOnFewTiles) {
  const DeviceCaps h100 = epifuse::detail::h100();
  for (const DeviceCaps& caps : {hopper(), h100}) {
    EXPECT_TRUE(gemm_bias_act_delegation_pays(shape(26, 320, 30208), caps)) << "3 tiles, split-K 8 before";
    EXPECT_TRUE(gemm_bias_act_delegation_pays(shape(61, 704, 8064), caps)) << "12 whole tiles";
    EXPECT_TRUE(gemm_bias_act_delegation_pays(shape(32, 4224, 1024), caps)) << "33 tiles";
    EXPECT_FALSE(gemm_bias_act_delegation_pays(shape(32, 4352, 1024), caps)) << "34 tiles of a short K";
    EXPECT_TRUE(gemm_bias_act_delegation_pays(shape(32, 6272, 6144), caps)) << "49 tiles, K 6144";
    EXPECT_FALSE(gemm_bias_act_delegation_pays(shape(32, 6272, 6080), caps)) << "49 tiles, K under 6144";
    EXPECT_FALSE(gemm_bias_act_delegation_pays(shape(32, 6400, 8192), caps)) << "50 tiles";
    EXPECT_FALSE(gemm_bias_act_delegation_pays(shape(33, 3200, 8192), caps)) << "25 x 2 = 50 tiles";
    EXPECT_TRUE(gemm_bias_act_delegation_pays(shape(34, 10496, 3520), caps)) << "164 whole tiles";
    EXPECT_TRUE(gemm_bias_act_delegation_pays(shape(20, 22528, 4032), caps)) << "176 whole tiles";
    EXPECT_FALSE(gemm_bias_act_delegation_pays(shape(20, 22656, 4032), caps)) << "177 tiles";
    EXPECT_FALSE(gemm_bias_act_delegation_pays(shape(34, 10496, 4096), caps)) << "past a wave, stream-K's K";
    EXPECT_FALSE(gemm_bias_act_delegation_pays(shape(20, 16896, 4032), caps)) << "132 tiles: one wave";
    EXPECT_FALSE(gemm_bias_act_delegation_pays(shape(8, 320, 30208), caps)) << "8 tokens on 3 tiles";
    EXPECT_TRUE(gemm_bias_act_delegation_pays(shape(4, 17088, 3136), caps)) << "8 tokens at most, 134 tiles";
    EXPECT_TRUE(gemm_bias_act_delegation_pays(shape(7, 24448, 19776), caps)) << "191 tiles";
    EXPECT_TRUE(gemm_bias_act_delegation_pays(shape(1, 28160, 4032), caps)) << "220 tiles";
    EXPECT_FALSE(gemm_bias_act_delegation_pays(shape(1, 28288, 4032), caps)) << "221 tiles";
    EXPECT_FALSE(gemm_bias_act_delegation_pays(shape(1, 16896, 4032), caps)) << "132 tiles: one wave";
    EXPECT_FALSE(gemm_bias_act_delegation_pays(shape(2, 17536, 8192), caps)) << "137 tiles: the stream-K tail";
    EXPECT_FALSE(gemm_bias_act_delegation_pays(shape(4, 17088, 3136, DType::kFP16, DType::kFP16), caps)) << "fp16";
    EXPECT_TRUE(gemm_bias_act_delegation_pays(shape(65, 320, 30208), caps)) << "65 tokens";
    EXPECT_TRUE(gemm_bias_act_delegation_pays(shape(255, 5696, 448), caps)) << "255 tokens, a short K";
    EXPECT_TRUE(gemm_bias_act_delegation_pays(shape(256, 4096, 1024), caps)) << "256 tokens, K 1024";
    EXPECT_FALSE(gemm_bias_act_delegation_pays(shape(256, 4096, 960), caps)) << "256 tokens, K under 1024";
    EXPECT_TRUE(gemm_bias_act_delegation_pays(shape(1023, 14336, 4096), caps)) << "1023 tokens";
    EXPECT_FALSE(gemm_bias_act_delegation_pays(shape(1024, 14336, 4096), caps)) << "1024 tokens";
    EXPECT_FALSE(gemm_bias_act_delegation_pays(shape(100, 4096, 4096, DType::kFP16, DType::kFP16), caps)) << "fp16";
    EXPECT_FALSE(gemm_bias_act_delegation_pays(shape(40, 1024, 2040), caps)) << "under 4 MiB";
    EXPECT_TRUE(gemm_bias_act_delegation_pays(shape(40, 1024, 2048), caps)) << "4 MiB";
    EXPECT_FALSE(gemm_bias_act_delegation_pays(shape(50, 960, 1792), caps)) << "3.3 MiB";
    EXPECT_TRUE(gemm_bias_act_delegation_pays(shape(12, 384, 16384), caps)) << "warp-mma, rows of 16384";
    EXPECT_FALSE(gemm_bias_act_delegation_pays(shape(12, 384, 16320), caps)) << "warp-mma, shorter rows";
    EXPECT_TRUE(gemm_bias_act_delegation_pays(shape(24, 1024, 4096), caps)) << "token rows reading 16 MiB";
    EXPECT_FALSE(gemm_bias_act_delegation_pays(shape(24, 1024, 4032), caps)) << "token rows reading less";
    EXPECT_TRUE(gemm_bias_act_delegation_pays(shape(63, 448, 6976), caps)) << "4 rows of 5.96 MiB";
  }
  // 12 x 4096 x 4096: an H100 runs the 128x32 kernel (32 tiles, delegated), an H200 the 16-token one.
  EXPECT_TRUE(gemm_bias_act_delegation_pays(shape(12, 4096, 4096), h100));
  EXPECT_FALSE(gemm_bias_act_delegation_pays(shape(12, 4096, 4096), hopper()));
  EXPECT_TRUE(gemm_bias_act_delegation_pays(shape(1, 1024, 16448), hopper())) << "1024 rows past 16384";
  EXPECT_TRUE(gemm_bias_act_delegation_pays(shape(8, 4088, 65536), hopper())) << "4088 rows";
  EXPECT_FALSE(gemm_bias_act_delegation_pays(shape(8, 4096, 65536), hopper())) << "4096 rows";
  EXPECT_FALSE(gemm_bias_act_delegation_pays(shape(1, 1024, 16384), hopper())) << "rows of 16384";
  EXPECT_TRUE(gemm_bias_act_delegation_pays(shape(6, 512, 32832), hopper())) << "512 rows past 32768";
  EXPECT_FALSE(gemm_bias_act_delegation_pays(shape(6, 1016, 32768), hopper())) << "1016 rows of 32768";
  EXPECT_FALSE(gemm_bias_act_delegation_pays(shape(2, 448, 35264), hopper())) << "448 rows";
  EXPECT_FALSE(gemm_bias_act_delegation_pays(shape(1, 1024, 16448, DType::kFP16, DType::kFP16), hopper())) << "fp16";
  EXPECT_FALSE(gemm_bias_act_delegation_pays(shape(1, 1024, 16448), h100)) << "an H100's HBM3";
  DeviceCaps unknown = hopper();
  unknown.dram_gbps = 0;
  EXPECT_FALSE(gemm_bias_act_delegation_pays(shape(1, 1024, 16448), unknown)) << "DRAM bandwidth unknown";
}

// x is padded to whole token tiles (times the cluster along the tokens) between 65 and 1152 tokens
// when the last tile is at least a quarter out of bounds, the call has 20 GFLOP or more and x is at
// most half the weight's rows.
TEST(GatedMlpHeuristics, PadsTokensToWholeTilesWhereItPays) {
  // 65-96 and 129-320 tokens: one token tile of 80, 96 or 144 to 224, 96-token pairs, two of 144
  // or 160, all with less than a quarter of the last tile out of bounds, read x in place; so does
  // every count past 1152 tokens, and every count under 86 on this weight (under 20 GFLOP).
  const std::pair<std::int64_t, std::int64_t> expected[] = {
      {1, 0},     {57, 0},    {64, 0},   {65, 0},   {85, 0},    {86, 0},    {96, 0},     {101, 0},
      {128, 0},   {129, 0},   {161, 0},  {176, 0},  {177, 0},   {193, 0},   {200, 0},    {224, 0},
      {232, 0},   {245, 0},   {256, 0},  {257, 0},  {288, 0},   {290, 0},   {333, 384},  {380, 0},
      {385, 448}, {1025, 1120}, {1152, 0}, {1153, 0}, {4095, 0},  {16383, 0}};
  for (const auto& [M, padded] : expected) {
    const GatedMlpArgs a = gated(M, 14336, 4096);
    KernelChoice choice;
    ASSERT_TRUE(select(a, hopper(), kernel_table(), &choice).ok());
    const KernelKey& k = choice.key;
    const std::int64_t step = k.swap_ab ? k.tile.n * k.cluster.n : k.tile.m * k.cluster.m;
    EXPECT_EQ(launch_plan(a, hopper(), choice).padded_tokens, padded) << "M = " << M << ", " << name(k);
    if (padded != 0) EXPECT_EQ(padded % step, 0) << "M = " << M;
  }
  EXPECT_EQ(launch_plan(shape(200, 4096, 4096), hopper(), KernelChoice{}).padded_tokens, 0);
  // Small calls and calls whose x outweighs half the weight read x in place: the copy costs more.
  const struct {
    std::int64_t M, N, K, padded;
  } sized[] = {{581, 320, 320, 0}, {980, 448, 512, 0}, {343, 12544, 320, 0}, {1069, 320, 14208, 0},
               {698, 256, 7680, 0}, {671, 9152, 1152, 768}, {336, 10688, 3392, 384}, {1025, 8320, 2048, 1120},
               {460, 8320, 2048, 0}};
  for (const auto& c : sized) {
    const GatedMlpArgs a = gated(c.M, c.N, c.K);
    KernelChoice choice;
    ASSERT_TRUE(select(a, hopper(), kernel_table(), &choice).ok());
    EXPECT_EQ(launch_plan(a, hopper(), choice).padded_tokens, c.padded)
        << c.M << "x" << c.N << "x" << c.K << ", " << name(choice.key);
  }
}

}  // namespace
}  // namespace epifuse::detail

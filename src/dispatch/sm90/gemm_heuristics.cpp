// Kernel choice for the sm90 GEMM, by shape class (docs/heuristics.md has the measurements
// behind each rule: a sweep of every bf16 GEMM kernel over odd and even M on Llama-3 8B and 70B
// projections, bench/results/grid/):
//   col_sum / col_amax  -> cooperative 128x128 (a 128-column tile keeps the per-column partial
//                          results in registers without spilling)
//   M <= 8, bias + activation at most, at most 4 x SMs blocks of 16 rows (one wave of the
//   kernel's single CTAs)
//                       -> the warp-mma kernel (mma.sync warps streaming the weight rows), with 1
//                          to 8 K-loop shares (calls cuBLASLt computes never reach dispatch, but
//                          for decode calls on narrow weights: delegates() below)
//   M 9-16, bias + activation at most, weight <= 64 MiB (or at most 3 x SMs / 8 blocks, or rows
//   of at most 32768 on at most SMs blocks, 20480 on 2 x SMs), at most 2 x SMs blocks (with DRAM
//   under 4 TB/s, an H100's, at most 192 blocks where rows are at most 4096)
//                       -> the same kernel with two token tiles
//   M 17-64, bias + activation at most, narrow weights (SMs >= blocks x rows of 16 tokens,
//   rows x N x K <= 2^24)
//                       -> the same kernel in rows of 16 tokens
//   M 9-64, bias + activation cuBLASLt cannot fuse, weights of at least 4 MiB on few 128x32 tiles
//   or whole tiles just past one wave, or long rows on the warp-mma kernels; M 1-8 in bf16, whole
//   128x32 tiles past one wave, up to 5/3 of it, and on an H200 the warp-mma kernel's long rows;
//   M 65-255 in bf16, and M 256-1023 with K >= 1024 (delegates_bias_act)
//                       -> not an epifuse kernel: cuBLASLt's fp32 product + the bias + activation
//                          kernel (api/gemm.cpp)
//   M <= 64, bias + activation at most, otherwise
//                       -> swapped 128x32 tile compiled without C, or its stream-K twin in even
//                          split-K shares on few tiles with long K loops, or sharing a short last
//                          wave (bf16; fp16 has no such row and keeps the warp-mma kernels past
//                          those block counts: see decode_splits, decode_key and two_token_tiles)
//   M <= 192            -> swapped 128x64 tile: the weight fills wgmma's 64-row side, the tokens
//                          its N side; its stream-K twin (CUTLASS's heuristic decomposition) when
//                          the K loop is deep (K >= 2N) and the tiles fill at most half the SMs.
//                          Explicit split-K shares (KernelChoice::splits 2-8) did not beat it at
//                          decode (bench/results/tuning/issue9/gemm-decode-sweep.json)
//   128x256 tiles <= 1.5 waves
//                       -> cooperative 128x128 stream-K: whole tiles cannot fill the GPU evenly
//   otherwise           -> cooperative 128x256, cluster 2x1 (B tiles multicast to 2 CTAs), or
//                          1x2 when the 128-row tiles are odd in number (a 2x1 cluster would pad
//                          them with a whole idle tile)
//   bias + activation   -> pingpong 128x128, cluster 1x2, ahead of the rules above from 257 tokens
//                          when its tiles make at least four waves and K <= 16384: one warp
//                          group's bias+GELU runs under the other's K loop
//                          (bench/results/tuning/issue9/pingpong-bias-act/)
// A dtype combination compiled with fewer kernels runs the data-parallel twin of the choice, or its
// cooperative 128x256 1x2 kernel (fp16 at few tokens: the warp-mma rules as above). Within a
// configuration the narrowest compiled epilogue that covers the call runs (cast only, then bias +
// activation, then the full tree: fewer nodes, less time per tile), and without a residual a
// kernel compiled without C: no C staging in shared memory, and TMA stores overlap the next
// subtile's work.
#include <optional>
#include <tuple>
#include <vector>

#include "dispatch/sm90/heuristics.hpp"
#include "kernels/sm90/warp_mma_gemm_rules.hpp"

namespace epifuse::detail::sm90 {
namespace {

constexpr Configuration kColumnReductions = {Schedule::kCooperative, {128, 128, 64}, {1, 1}, false};
constexpr Configuration kFewTokens = {Schedule::kCooperative, {128, 64, 128}, {1, 1}, true};
constexpr Configuration kFewTokensStreamK = {Schedule::kCooperative, {128, 64, 128}, {1, 1}, true,
                                             Decomposition::kStreamK};
constexpr Configuration kStreamK = {Schedule::kCooperative, {128, 128, 64}, {1, 1}, false, Decomposition::kStreamK};
constexpr Configuration kMidTokens = {Schedule::kCooperative, {128, 256, 64}, {1, 2}, false};
constexpr Configuration kManyTokens = {Schedule::kCooperative, {128, 256, 64}, {2, 1}, false};
constexpr Configuration kEpilogueOverlap = {Schedule::kPingpong, {128, 128, 64}, {1, 2}, false};
constexpr Configuration kSwapped32StreamK = {Schedule::kCooperative, {128, 32, 128}, {1, 1}, true,
                                             Decomposition::kStreamK};
constexpr Configuration kDecodeTwoTokenTiles = {Schedule::kWarpMma, {16, 16, 64}, {1, 1}, true};

// Where the pingpong kernel's overlap of epilogue and K loop paid in the sweeps. Below four waves
// of its tiles it lost at 50 of 93 shapes; beyond K = 16384 (little epilogue per K loop to hide)
// it won 3 % on geomean but lost up to 16 % (Llama-3 70B's down projection at 8169-8173 tokens),
// so those calls keep the cooperative kernels.
bool overlaps_epilogue(const GemmArgs& args, int sm_count) {
  if (required_coverage(args.epilogue) != EpilogueCoverage::kBiasActivation || args.M <= 256) return false;
  const std::int64_t tiles = ceil_div(args.M, 128) * ceil_div(args.N, 128);
  return args.K <= 16384 && tiles >= 4 * static_cast<std::int64_t>(sm_count);
}

Configuration configuration_for(const GemmArgs& args, int sm_count) {
  if (args.epilogue.has_column_reductions()) return kColumnReductions;
  if (args.M <= 192) {
    const std::int64_t tiles = ceil_div(args.M, 64) * ceil_div(args.N, 128);
    return args.K >= 2 * args.N && 2 * tiles <= sm_count ? kFewTokensStreamK : kFewTokens;
  }
  const std::int64_t row_tiles = ceil_div(args.M, 128);
  if (2 * row_tiles * ceil_div(args.N, 256) <= 3 * sm_count) return kStreamK;
  return row_tiles % 2 == 0 ? kManyTokens : kMidTokens;
}

// What to try when the build lacks the chosen configuration's kernels: whole tiles instead of
// stream-K, then the cooperative 128x256 1x2 kernel every dtype combination has.
Configuration data_parallel_twin(Configuration c) {
  c.decomposition = Decomposition::kDataParallel;
  if (c.tile.m == kStreamK.tile.m && c.tile.n == kStreamK.tile.n && !c.swap_ab) return kMidTokens;
  return c;
}

// The narrowest candidate of configuration `c` that serves the call, if any.
std::optional<KernelKey> narrowest(const GemmArgs& args, const std::vector<KernelKey>& candidates,
                                   const Configuration& c) {
  const EpilogueCoverage required = required_coverage(args.epilogue);
  const EpilogueCoverage widest =
      required == EpilogueCoverage::kFullWithColumnReductions ? required : EpilogueCoverage::kFull;
  std::optional<KernelKey> best;
  for (const KernelKey& k : candidates) {
    if (k.op != Op::kGemm || k.a != args.a_dtype || k.b != args.b_dtype || k.d != args.d_dtype ||
        !has_configuration(k, c)) {
      continue;
    }
    if (k.epilogue < required || k.epilogue > widest || (args.epilogue.residual && !k.has_c)) continue;
    if (!best || std::tie(k.epilogue, k.has_c) < std::tie(best->epilogue, best->has_c)) best = k;
  }
  return best;
}

// Up to 8 tokens the warp-mma kernel, where its epilogue serves the call: with fp32 bias + GELU
// it ran 0.93-1.28x cuBLASLt + the bias+GELU kernel in the bench (H200, 129ebdc, eight catalogue
// models at 1, 5 and 8 tokens, bench/results/tuning/issue9/decode-gemm/two-token-tiles/), and
// 0.74-0.98x the time of the swapped 128x64 kernel it replaced at N >= 8192. Calls cuBLASLt
// computes are delegated before dispatch: there the kernel still loses to cuBLASLt in the bench,
// 0.89-1.07x its speed (geometric mean 0.97, H200, 36 points at 1-8 tokens,
// bench/results/moe/decode-warp-mma/l2-policy/).
// Past one wave of singles on rows under 1536 elements (a few K steps per warp) the swapped
// kernel took 0.78-0.98x its time at 6 of 7 focused shapes (3x46272x320: 18.0 against 23.0 µs;
// 1.03x at 5x11776x832), so those calls keep it. (bf16 calls past that wave take the swapped
// 128x32 kernel before this rule: warp_mma_runs_first.)
constexpr std::int64_t kDecodeShortRowsK = 1536;

std::optional<KernelKey> decode_key(const GemmArgs& args, const std::vector<KernelKey>& candidates, int sm_count) {
  if (args.M > 8 || required_coverage(args.epilogue) > EpilogueCoverage::kBiasActivation) return std::nullopt;
  if (args.K < kDecodeShortRowsK && ceil_div(args.N, 16) > 4 * static_cast<std::int64_t>(sm_count)) return std::nullopt;
  return narrowest(args, candidates, kWarpMmaSingles);
}

// At 9-16 tokens the warp-mma kernel of two token tiles, on weights of up to 64 MiB whose blocks
// of 16 rows fit in one wave of its CTAs, and on longer rows of narrow weights
// (two_token_tiles_fit). Its CTAs (warp_mma_mainloop.cuh: launch_chosen) hold one block (8 warps,
// three per SM) or, on weights of at least 24 MiB and 64 blocks, two (8 warps, two per SM).
// K-loop shares with one block: the most (1, 2, 4 or 8) whose CTAs fit in one wave of them, each
// of at least one round of 8 warps x 2 steps. At 129ebdc it took 0.66-1.01x the time of the best
// swapped 128x64 kernel in the same run on such weights (36 grid points). With one share at
// b8779ad it took 1.21-1.33x that time on a weight of 512 blocks (Gemma-2 9B's qkv), and on larger
// weights it lost too (exp13 and exp14 in the folder above). The share count picked the fastest
// of 1, 2, 4 and 8 at all 43 such points of the sweep (16-384 blocks). With two blocks: the most
// shares whose CTAs fit the cluster caps (cluster_ctas), or 8 shares of CTAs of 4 warps where the
// caps leave 2 on at most SMs / 2 CTAs. H100, the tiles probe (bench/results/tuning/issue9/
// decode-gemm/block-pairs/, tools/warp_mma_tiles_rule.py) at 9-16 tokens: these shares came within
// 1.043x of the best of 1, 2, 4 and 8 for CTAs of two blocks at each of 71 points, and 8 shares of
// 4 warps took 0.92-0.95x the time of 2 of 8 warps on 128 blocks (2048 x 14336, 2048 x 28672).
// bf16 calls past 2 x SMs blocks take the swapped 128x32 kernel before this rule
// (warp_mma_runs_first); the 3 x SMs wave bounds fp16's.
// At 17-64 tokens the same kernel in rows of 16 tokens (each row reads the weight again), on
// narrow weights: at most SMs blocks x rows, and rows x N x K <= 2^24 (for example N <= 1024 with
// K 8192 at 17-32 tokens, N 320 with K 16384 at 33-48). The most shares, each of at least one
// round, whose CTAs number at most SMs for 8 shares, 1.5 x SMs for 4 and 2 x SMs for 2 (larger
// clusters placed fewer CTAs well). H100, fp32 bias + GELU against cuBLASLt + the bias+GELU
// kernel, 275 shapes of N 256-8192, K 2048-32768 at 17-64 tokens with every 128x32 and 16-token
// kernel forced (bench/results/tuning/issue9/decode-gemm/token-rows/): on the 78 such shapes
// 0.70-1.27x (geometric mean 0.977; the best of 1, 2, 4, 8 shares 0.979; one CTA per SM for every
// share count 0.955, three 0.939), where the 128x32 kernel as dispatched before ran 0.37-0.99x
// (0.737). More rows or wider weights lost to the 128x32 kernel (1536 x 2048 at 17 tokens: 0.93
// against 0.94; 768 x 2048 at 45: 0.92 against 0.93).
constexpr std::int64_t kTwoTokenTilesMaxWeight = std::int64_t{1} << 25;  // elements: 64 MiB in 16 bits
constexpr std::int64_t kTwoTokenTilesCtasPerSm = 3;
constexpr std::int64_t kTwoTokenTilesStepsPerRound = 16;
constexpr std::int64_t kTokenRowsMaxTokens = 64;
constexpr std::int64_t kTokenRowsMaxWeightReads = std::int64_t{1} << 24;  // elements: rows x N x K

// At 9-16 tokens a weight of up to 64 MiB, or a larger one narrow enough that 8 K-loop shares of
// its blocks fit in one wave of three CTAs per SM: H100, 9-16 tokens on N 256-2048 with K
// 24576-57344 (bench/results/tuning/issue9/decode-gemm/token-rows/long-k-h100/): on 640 x 57344
// (73 MB) 8 shares ran 0.94x cuBLASLt + bias+GELU where the 128x32 kernel's 8 split-K shares ran
// 0.69-0.72x; on 768 x 57344 0.79-0.82x against 0.82-0.85x. With CTAs of two blocks also, on rows
// of up to 32768 elements, at most SMs blocks, or 2 x SMs with rows of up to 20480: H100, fp32
// bias + GELU against cuBLASLt + bias+GELU, the 128x32 kernel forced at every share count in the
// same runs (bench/results/tuning/issue9/decode-gemm/block-pairs/): on the 42 such points of
// c374256's and 80f9d04's runs (N 2048-4096, K 14336-28672, 9-16 tokens) the 16-token kernel ran
// 1.012x the speed of the 128x32 kernel with the shares it had here before (geometric mean,
// 0.978-1.058x): Gemma-2 9B's 3584 x 14336 0.974-0.981x against 0.941-0.964x, 3072 x 20480
// 0.976-0.980x against 0.925-0.974x. On 3072 x 28672 the 128x32 kernel at its best shares was
// 1-2.5 % faster than the 16-token kernel at its best, on N >= 5120 2-15 %.
constexpr std::int64_t kBlockPairsMaxK = 32768;
constexpr std::int64_t kBlockPairsWideMaxK = 20480;

bool two_token_tiles_fit(const GemmArgs& args, int sm_count) {
  const std::int64_t blocks = ceil_div(args.N, 16), sms = sm_count;
  if (args.N * args.K <= kTwoTokenTilesMaxWeight || 8 * blocks <= kTwoTokenTilesCtasPerSm * sms) return true;
  return args.K <= kBlockPairsMaxK && (blocks <= sms || (blocks <= 2 * sms && args.K <= kBlockPairsWideMaxK));
}

bool runs_in_token_rows(const GemmArgs& args, int sm_count) {
  const std::int64_t rows = ceil_div(args.M, 16);
  return args.M > 16 && args.M <= kTokenRowsMaxTokens && ceil_div(args.N, 16) * rows <= sm_count &&
         rows * args.N * args.K <= kTokenRowsMaxWeightReads;
}

// The most CTAs of 8 warps of the two-token-tile kernel (its rows, or two blocks per CTA) with
// `splits` shares (clusters of that many CTAs); with at most SMs blocks x rows, 2 shares of the
// rows kernel always fit.
std::int64_t cluster_ctas(int splits, std::int64_t sms) {
  return splits == 8 ? sms : splits == 4 ? 3 * sms / 2 : 2 * sms;
}

std::optional<KernelChoice> two_token_tiles(const GemmArgs& args, const std::vector<KernelKey>& candidates,
                                            int sm_count) {
  const std::int64_t blocks = ceil_div(args.N, 16), rows = ceil_div(args.M, 16);
  const bool decode = args.M > 8 && args.M <= 16 && two_token_tiles_fit(args, sm_count) &&
                      blocks <= kTwoTokenTilesCtasPerSm * sm_count;
  if ((!decode && !runs_in_token_rows(args, sm_count)) ||
      required_coverage(args.epilogue) > EpilogueCoverage::kBiasActivation) {
    return std::nullopt;
  }
  const std::optional<KernelKey> key = narrowest(args, candidates, kDecodeTwoTokenTiles);
  if (!key) return std::nullopt;
  KernelChoice choice{*key};
  const std::int64_t steps = ceil_div(args.K, 64), sms = sm_count;
  const bool pairs = rows == 1 && kernels::sm90::warp_mma::runs_block_pairs(args.N, args.K);
  const std::int64_t ctas = pairs ? ceil_div(blocks, 2) : blocks * rows;
  for (int splits : {8, 4, 2}) {
    const std::int64_t wave = rows == 1 && !pairs ? kTwoTokenTilesCtasPerSm * sms : cluster_ctas(splits, sms);
    if (ctas * splits <= wave && steps >= kTwoTokenTilesStepsPerRound * splits) {
      choice.splits = splits;
      break;
    }
  }
  if (pairs && choice.splits == 2 && 2 * ctas <= sms && steps >= kTwoTokenTilesStepsPerRound * 8) choice.splits = 8;
  return choice;
}

// Up to 64 tokens, bias + activation at most, the swapped 128x32 kernel compiled with just that
// epilogue and without C (so a residual call never takes it): without C staging it keeps more K
// stages in flight than the swapped 128x64 kernel with the full tree, which ran these calls
// before. Fp32 bias + GELU, eight catalogue models, against cuBLASLt + the bias+GELU kernel in the
// same run (bench/results/tuning/issue9/decode-gemm/thirty-two-token-tile/): on an H200 this rule
// over the kernels forced 0.75-1.20x at 17-64 tokens (geometric mean 0.97 at 17-32, 0.98 at
// 33-64), where the 128x64 kernel as dispatched ran 0.65-1.12x (0.82, 0.85); on an H100 as
// dispatched 0.79-1.11x (0.99, 1.00).
constexpr std::int64_t kSwapped32MaxTokens = 64;
constexpr std::int64_t kSwapped32TailStreamKMinK = 4096;

// Its stream-K twin's K-loop shares: even split-K shares of every tile on few tiles with long K
// loops (CUTLASS's heuristic mode gave such tiles to up to a wave of CTAs whose partial sums meet
// one after another: 2-3 tiles with K 32768 took 2.6-2.8x cuBLASLt + bias+GELU's time); the heuristic
// mode (1) past a wave of tiles with a last wave under a quarter full; else none (whole tiles).
// H100, the 275-shape sweep above (N 256-8192, K 2048-32768, 17-64 tokens; `kit` the K loop's
// 128-element steps), the shapes each rule takes, against the heuristic mode and whole tiles:
// - 8 shares on at most 8 tiles with kit >= 128 (27 shapes): 0.53-0.83x, against 0.36-0.69x and
//   0.23-0.53x (4 shares were better on 3 tiles, 0.62 against 0.53);
// - 4 on at most 16 tiles with kit >= 64, or 32 with kit >= 96 (50): 0.81-1.06x, against
//   0.68-1.00x and 0.38-1.01x (the catalogue grid's 3584x14336 and 4096x14336 at 9-32 tokens:
//   0.93-1.00x, whole tiles 0.83-0.94x, the heuristic mode 0.93-0.96x);
// - 2 on at most SMs / 2 tiles of two token tiles (33-64 tokens) with kit >= 64 (16): 0.84-1.09x,
//   against 0.83-1.05x and 0.77-1.03x; with one token tile whole tiles were faster (6144 x 16384:
//   1.10 against 0.97), and below kit 64 shares lost to whole tiles;
// - the heuristic mode past a wave: 10240x8192 at 33-64 tokens, 160 tiles, 0.80-0.84x the whole
//   tiles' time on an H200; 53248x16384 at 1-16 tokens on an H100, 416 tiles, 0.96-0.98x.
// These rules and the token rows above, over the forced kernels: geometric mean 0.952 over the
// 275 shapes (each shape's best kernel 0.959), where the rules before (stream-K's heuristic mode
// where K >= 8192 on at most SMs / 3 weight tiles, no token rows) ran 0.835.
std::optional<int> swapped32_shares(const GemmArgs& args, int sm_count) {
  const std::int64_t tiles = ceil_div(args.N, 128) * ceil_div(args.M, 32), sms = sm_count;
  const std::int64_t k_steps = ceil_div(args.K, 128);
  if (k_steps >= 64) {
    if (tiles <= 8 && k_steps >= 128) return 8;
    if (tiles <= 16 || (tiles <= 32 && k_steps >= 96)) return 4;
    if (args.M > 32 && 2 * tiles <= sms) return 2;
  }
  if (tiles <= sms || args.K < kSwapped32TailStreamKMinK) return std::nullopt;
  const std::int64_t last_wave = tiles - (ceil_div(tiles, sms) - 1) * sms;
  if (4 * last_wave < sms) return 1;
  return std::nullopt;
}

std::optional<KernelChoice> swapped32_choice(const GemmArgs& args, const std::vector<KernelKey>& candidates,
                                             int sm_count) {
  if (args.M > kSwapped32MaxTokens || required_coverage(args.epilogue) > EpilogueCoverage::kBiasActivation) {
    return std::nullopt;
  }
  const std::optional<int> shares = swapped32_shares(args, sm_count);
  if (shares) {
    if (std::optional<KernelKey> k = narrowest(args, candidates, kSwapped32StreamK)) {
      KernelChoice choice{*k};
      choice.splits = *shares;
      return choice;
    }
  }
  if (std::optional<KernelKey> k = narrowest(args, candidates, kSwapped32)) return KernelChoice{*k};
  return std::nullopt;
}

// Where the warp-mma kernels run ahead of the swapped 128x32 kernel (H200 unless said):
// - up to 8 tokens while all blocks of 16 rows fit in one wave of singles. Beyond it the 128x32
//   kernel took 0.82-0.89x the warp-mma kernel's time on 10240x8192, and on an H100 0.83-0.95x the
//   swapped 128x64 kernel's on rows under 1536 elements. At 512 blocks the warp-mma kernel was
//   3-7 % faster at 1-5 tokens and the 128x32 one 2-7 % at 8.
// - at 9-16 tokens on weights of up to 64 MiB (or narrow ones: two_token_tiles_fit) of at most
//   2 x SMs blocks. On 128-256 blocks the warp-mma kernel was 0-27 % faster; from 288 blocks or
//   103 MB the 128x32 kernel took 0.72-0.96x the time of the kernel dispatched before (the
//   16-token kernel or the swapped 128x64).
// - at 17-64 tokens in rows of 16 tokens on narrow weights (runs_in_token_rows, H100).
// - not at 9-16 tokens on more than 192 blocks of rows of at most 4096 on a device whose DRAM
//   reads under 4 TB/s (an H100's HBM3: 3.35). H100, fp32 bias + GELU, both kernels forced in the
//   same run, the catalogue grid at 9, 13 and 16 tokens in three runs (token-rows/8342a98-h100/,
//   block-pairs/c374256-h100/ and 80f9d04-h100/ in bench/results/tuning/issue9/decode-gemm/): on
//   3584 x 3584, 3584 x 4096 and 4096 x 4096 (Qwen2.5-7B's, Gemma-2 9B's and Llama-3 8B's o
//   projections) the 128x32 kernel's whole tiles ran 1.01-1.14x the 16-token kernel's speed at
//   26 of the 27 points (0.902-1.028x cuBLASLt + bias+GELU against 0.851-0.914x); at the other
//   every 128x32 row of that run ran 0.58-0.63x. On an H200 the 16-token kernel ran 1.00-1.09x
//   the 128x32 kernel's speed on the same shapes (thirty-two-token-tile/sweeps-h200/).
constexpr std::int64_t kShortRowsMaxK = 4096;

bool warp_mma_runs_first(const GemmArgs& args, const DeviceCaps& caps) {
  const std::int64_t blocks = ceil_div(args.N, 16), sms = caps.sm_count;
  if (args.M <= 8) return blocks <= 4 * sms;
  if (args.M > 16) return runs_in_token_rows(args, caps.sm_count);
  if (has_hbm3(caps) && blocks > 192 && args.K <= kShortRowsMaxK) return false;
  return blocks <= 2 * sms && two_token_tiles_fit(args, caps.sm_count);
}

// Bias + activation calls cuBLASLt cannot fuse (an fp32 bias with a 16-bit D, activations it
// lacks) at 9-64 tokens on weights of at least 4 MiB run cuBLASLt's fp32 product + epifuse's bias
// + activation kernel where epifuse's own kernels cannot fill the GPU:
// - the 128x32 kernel on at most SMs / 4 tiles (33 on 132 SMs), or 3/8 x SMs (49) with K >= 6144:
//   its whole tiles leave most SMs idle, and its split-K shares' partial sums meet one after
//   another; and its whole tiles just past one wave (at most 4/3 x SMs, K under the stream-K tail
//   rule's 4096), whose second wave is nearly empty;
// - the warp-mma kernels on rows of at least 16384 at 9-16 tokens, and at 17-64 where their rows of
//   16 tokens (each reading the weight again) read at least 16 MiB.
// H100, fp32 bias + GELU against cuBLASLt + the bench's bias+GELU kernel, the delegated path and
// epifuse's own kernel in the same runs: on the 502 calls of 9-64 tokens with at most 64 such tiles
// of random seeds 14-16 and the catalogue grid at 17-64 tokens (bench/results/tuning/issue9/
// decode-gemm/bias-act-delegation/) the delegated path ran 0.86-1.17x the baseline (geometric mean
// 1.008), the own kernels 0.55-1.31x (0.996), the rule as first fitted (6ca32c4) 0.91-1.31x
// (1.038; 3 calls under 0.95, where the own kernels had 109). The delegated path loses where the
// own kernel's tiles are many and short (128x32 whole tiles on 36-56 tiles of K under 1000:
// 1.03-1.11x against 1.17-1.31x).
// Past one wave, measured beside the rule's runs (seeds 19 and 20 and the grid at 9-64 tokens,
// every call of at least 2 MiB delegated): whole tiles of K under 4096 on 134-174 tiles took the
// delegated path 0.97-1.03x against the own kernel's 0.85-1.02x (6 calls; 34 x 10496 x 3520:
// 0.984x against 0.845x). On weights of 2-4 MiB the delegated path won 11 of 19 calls in those
// runs but 4 of 22 in the checks of 6ca32c4 to 168ca12 (50 x 960 x 1792: 0.797x against 0.954x):
// the rule starts at 4 MiB. The rows kernel's threshold was a weight of 6 MiB until seed 22 of
// fae6f16's check ran 63 x 448 x 6976 (5.96 MiB in 4 rows, 24 MiB of reads) at 0.775x; over the
// measured calls the rows kernel lost on 20-28 MiB of reads (41 x 512 x 7808: 0.811x against
// 0.994x delegated) and won on 4-12 (30 x 576 x 3392: 1.171x against 1.085x); 24 x 768 x 5248
// (15 MiB: 0.920x against 0.998x) stays with it.
// At 1-8 tokens, where the warp-mma kernel does not run first: the 128x32 kernel's whole tiles
// past one wave, up to 5/3 x SMs (133-220 tiles on 132 SMs), ran 0.82-1.08x as fast as cuBLASLt
// + the bias+GELU kernel on an H200 (46 calls of seeds 26-30, geometric mean 0.93) and 0.92-1.06x
// on an H100 (25 calls of seeds 23-25, 0.99); its stream-K twin on a short last wave ran 1.01x on
// both and stays. Delegated, those of fresh seed 31 ran 1.015x (15 calls, H200). Bf16 only: fp16 has no 128x32 kernel there, and its warp-mma kernels past their
// wave were not measured against the delegated path.
// At 1-8 tokens on an H200's HBM3e (4 TB/s or more), the warp-mma kernel's long rows: K past
// 16384 on 1024-4095 rows, past 32768 on 512-1023. It reads such weights more slowly than
// cuBLASLt's product, by more than the bias + activation kernel costs. Against cuBLASLt + the
// bias+GELU kernel (H200, seeds 26-32 and the slowest calls of seed 31, the operands from device
// memory; geometric mean over the shapes, worst): on 1024-4095 rows past 16384 it ran 0.956x
// (64 shapes, 0.828), the delegated path 0.996x (28, 0.946); on 512-1023 rows past 32768 0.935x
// (14, 0.830) against 0.999x (3). It keeps 512-1023 rows of 16385-32768 (1.010x, 12 shapes;
// delegated 0.992x, 5) and 4096-8448 rows (0.989x, 29; delegated 0.972x, 9). The fastest of its
// CTA shapes and K-loop shares in the tiles probe took 1.00-1.07x the time of cuBLASLt's product
// in the bench on ten weights of K 16384-65280 (decode-gemm/bias-act-delegation/long-rows-h200/).
// On an H100 (3.35 TB/s, seeds 14 and 17-22) it ran 0.97-1.07x on those classes, and keeps them.
// At 65-255 tokens every bf16 call, and at 256-1023 those of K >= 1024: there epifuse's own
// kernels ran 0.66x (65-255) and 0.78x (256-1023) cuBLASLt + the bias+GELU kernel on Llama-3
// 8B/70B's grid (11a623e), and on the random suite of seed 20261122 (H200, the operands from
// device memory, a build delegating every such call with the own kernel forced beside it) the
// delegated path ran 0.963x against the own kernels' 0.704x at 65-255 tokens (41 calls, faster at
// 40), and 0.956x against 0.710x at 256-1023 with K >= 1024 (24 calls, faster at 21). With a
// shorter K the fp32 product's extra bytes weigh more: the own kernels won 13 of 16 such calls
// (0.968x against 0.823x; bench/results/tuning/issue9/bias-act-65-1023/).
constexpr std::int64_t kNarrowerDecodeMaxK = 8192;  // N 256-1023
constexpr std::int64_t kNarrowDecodeMaxK = 4096;    // N 1024-2048
constexpr std::int64_t kBiasActDelegationMinTokens = 9;
constexpr std::int64_t kBiasActDelegationMinWeight = std::int64_t{2} << 20;           // elements: 4 MiB in 16 bits
constexpr std::int64_t kBiasActDelegationTokenRowsMinReads = std::int64_t{8} << 20;  // rows x N x K: 16 MiB
constexpr std::int64_t kBiasActDelegationTwoTokenTilesMinK = 16384;
constexpr std::int64_t kBiasActDelegationMidTilesMinK = 6144;
constexpr std::int64_t kBiasActDelegationShortKFromTokens = 256;
constexpr std::int64_t kBiasActDelegationMidTokensBelow = 1024;
constexpr std::int64_t kBiasActDelegationMidTokensMinK = 1024;
constexpr std::int64_t kBiasActDecodeLongRowsAboveK = 16384;         // on 1024-4095 rows
constexpr std::int64_t kBiasActDecodeLongNarrowRowsAboveK = 32768;   // on 512-1023 rows

}  // namespace

// K-loop shares of the warp-mma kernels at up to 8 tokens, by waves of their CTAs
// (warp_mma_mainloop.cuh: the wide CTAs, two per SM, run every share count above 1; the singles,
// four per SM, one share past two wide CTAs per SM):
// - the most shares whose CTAs fit in one wave of wide CTAs: 2 up to 2 per SM, 4 or 8 up to 1.7
//   per SM (256 CTAs in clusters of 4 lost to 128 in clusters of 2), each share at least one round
//   of the wide CTA's 8 warps x 4 steps of 64 elements, two shares under 128 blocks half a round;
// - just past one wave of singles, 2 shares where the second wave would be at most a quarter full
//   (calls dispatch sends there only where no swapped 128x32 kernel is compiled: fp16).
// H200, the bench's sweep of 1, 2, 4 and 8 shares (b8779ad, bench/results/tuning/issue9/
// decode-gemm/two-token-tiles/: 22 distinct catalogue weights at 1, 5 and 8 tokens, 32 focused
// shapes at 1-8 tokens): this count was the fastest at 95 of 98 points and within 1.023x of it at
// the others (3fd5edf: 96 of 98, within 1.038x). For example:
// - 4 or 8 shares on 28-56 blocks with K >= 19328 took 0.69-0.88x the time of 2 (2x448x35264: 16.4
//   against 23.8 µs); 4 on 64 blocks with K >= 8192 1.10-1.18x.
// - 2 on 536-640 blocks with K >= 8192 took 0.81-0.98x the time of 1 (second wave 2-21 % full);
//   on 684 and 732 blocks (30 and 39 %) 1.13-1.33x; past two waves 1.40-1.90x (1376-2284 blocks,
//   K 1216-3392), and 2x26816x4160 (1676 blocks) took 1.48x cuBLASLt + bias+GELU's time with 2
//   (129ebdc's random suite): the rule stops a quarter past one wave.
// - With one share 5x1920x2432 and 3x1344x2304 (120 and 84 blocks, 36-38 steps) took 1.08-1.12x
//   cuBLASLt's time (3fd5edf's random suite); two had beaten it in the narrow rule's measurements.
int decode_splits(std::int64_t rows, std::int64_t K, int sm_count) {
  constexpr std::int64_t kStepsPerRound = 32;
  const std::int64_t blocks = ceil_div(rows, 16), steps = ceil_div(K, 64), sms = sm_count;
  for (int splits : {8, 4, 2}) {
    const std::int64_t ctas = blocks * splits;
    const bool one_wave = splits == 2 ? ctas <= 2 * sms : 10 * ctas <= 17 * sms;
    const std::int64_t min_steps =
        splits > 2 ? kStepsPerRound * splits : (blocks < 128 ? kStepsPerRound : 2 * kStepsPerRound);
    if (one_wave && steps >= min_steps) return splits;
  }
  const std::int64_t singles_wave = 4 * sms;
  if (blocks > singles_wave && blocks <= singles_wave + singles_wave / 4 && steps >= 2 * kStepsPerRound) return 2;
  return 1;
}

// Decode GEMMs on narrow weights without a bias or residual run the warp-mma kernel: H200, plain
// calls at 1 and 8 tokens, against cuBLASLt's fastest of its top four in the same run
// (bench/results/tuning/issue9/decode-gemm/narrow/): N 1024 with K 2048-8192 and N 2048 with K
// 4096-8192 (10 points, two runs, two K-loop shares) 1.01-1.67x cuBLASLt's speed. With one share
// N 2048 with K under 4096 (128 CTAs of 4 warps) was 0.85-1.52x; at N 3072 or K 16384 it lost at
// 11 of 12 points (0.89-0.96x). Narrower weights, N 256-1023 with K 1536-8192: plain calls of
// 1-8 tokens in the random runs of seeds 14-22 on an H100 (25 runs, 7964f1a-0594f85) took the own
// kernel at 0.98-1.58x cuBLASLt's fastest of its top four (227 points of 76 shapes, geometric mean
// 1.17), and in three H200 runs at 1.01-1.44x (34 points, 18 shapes); K <= 1024 lost (0.78-1.17x,
// mean 0.92), as did K 8193-16384 at some shapes (6 x 512 x 10752: 0.92x). Fresh seeds 23-25
// against the bench's stronger baseline of 6b264e4 (its candidates timed in graphs): 0.96-1.22x
// (30 shapes, mean 1.05). tools/narrow_decode_rule.py tabulates them (decode-gemm/narrower/).
// At N 1024-2048, K above 4096 went back to cuBLASLt: there the own kernel ran 0.99x cuBLASLt's
// speed (33 points of seeds 23-29, H100 and H200, 0.92-1.07x; delegated, 8 calls of seeds 28-29
// ran 1.00-1.02x their baseline), where K 2048-4096 ran 1.11x. At N 256-1023 with K 4097-8192 it
// ran 1.01x (57 points, 0.96-1.24x) and stays (decode-gemm/narrow-k/).
// Every other call cuBLASLt expresses runs cuBLASLt.
bool delegates(const GemmArgs& args, const DeviceCaps& caps, const std::vector<KernelKey>& candidates) {
  const int sm_count = caps.sm_count;
  const Epilogue& e = args.epilogue;
  const bool narrower = args.N >= 256 && args.N < 1024 && args.K >= 1536 && args.K <= kNarrowerDecodeMaxK;
  const bool narrow = args.N >= 1024 && args.N <= 2048 && args.K >= 2048 && (args.N <= 2032 || args.K >= 4096) &&
                      args.K <= kNarrowDecodeMaxK;
  const bool narrow_decode = args.M <= 8 && (narrower || narrow);
  if (!narrow_decode || e.col_bias != nullptr || e.residual != nullptr) return true;
  if (!decode_key(args, candidates, sm_count)) return true;
  // Kept only where choose() runs the warp-mma kernel: on a device of under 32 SMs these blocks
  // pass its wave, and the swapped 128x32 kernel was not measured against cuBLASLt on such calls.
  return !warp_mma_runs_first(args, caps) && swapped32_choice(args, candidates, sm_count).has_value();
}

bool delegates_bias_act(const GemmArgs& args, const DeviceCaps& caps) {
  if (args.M > kSwapped32MaxTokens) {
    if (args.a_dtype != DType::kBF16 || args.M >= kBiasActDelegationMidTokensBelow) return false;
    return args.M < kBiasActDelegationShortKFromTokens || args.K >= kBiasActDelegationMidTokensMinK;
  }
  if (args.N * args.K < kBiasActDelegationMinWeight) return false;
  if (args.M < kBiasActDelegationMinTokens) {
    if (args.a_dtype != DType::kBF16) return false;
    if (warp_mma_runs_first(args, caps)) {
      const bool long_rows = (args.N >= 1024 && args.N < 4096 && args.K > kBiasActDecodeLongRowsAboveK) ||
                             (args.N >= 512 && args.N < 1024 && args.K > kBiasActDecodeLongNarrowRowsAboveK);
      return caps.dram_gbps >= kHbm3GbpsBelow && long_rows;
    }
    if (swapped32_shares(args, caps.sm_count)) return false;
    const std::int64_t tiles = ceil_div(args.N, 128), sms = caps.sm_count;
    return tiles > sms && 3 * tiles <= 5 * sms;
  }
  if (warp_mma_runs_first(args, caps)) {
    return args.M <= 16 ? args.K >= kBiasActDelegationTwoTokenTilesMinK
                        : ceil_div(args.M, 16) * args.N * args.K >= kBiasActDelegationTokenRowsMinReads;
  }
  const std::int64_t tiles = ceil_div(args.N, 128) * ceil_div(args.M, 32), sms = caps.sm_count;
  if (tiles > sms) return 3 * tiles <= 4 * sms && args.K < kSwapped32TailStreamKMinK;
  return 4 * tiles <= sms || (8 * tiles <= 3 * sms && args.K >= kBiasActDelegationMidTilesMinK);
}

bool has_configuration(const KernelKey& key, const Configuration& c) {
  return key.arch == Arch::kSm90 && key.grouping == Grouping::kNone && key.schedule == c.schedule && key.tile.m == c.tile.m && key.tile.n == c.tile.n && key.tile.k == c.tile.k &&
         key.cluster.m == c.cluster.m && key.cluster.n == c.cluster.n && key.swap_ab == c.swap_ab &&
         key.decomposition == c.decomposition;
}

bool same_configuration(const Configuration& a, const Configuration& b) {
  return a.schedule == b.schedule && a.tile.m == b.tile.m && a.tile.n == b.tile.n && a.tile.k == b.tile.k &&
         a.cluster.m == b.cluster.m && a.cluster.n == b.cluster.n && a.swap_ab == b.swap_ab &&
         a.decomposition == b.decomposition;
}

Status choose(const GemmArgs& args, const DeviceCaps& caps, const std::vector<KernelKey>& candidates,
              KernelChoice* choice) {
  const std::optional<KernelChoice> swapped32 = swapped32_choice(args, candidates, caps.sm_count);
  if (!swapped32 || warp_mma_runs_first(args, caps)) {
    if (std::optional<KernelKey> decode = decode_key(args, candidates, caps.sm_count)) {
      *choice = {*decode};
      choice->splits = decode_splits(args.N, args.K, caps.sm_count);
      return Status::success();
    }
    if (std::optional<KernelChoice> decode = two_token_tiles(args, candidates, caps.sm_count)) {
      *choice = *decode;
      return Status::success();
    }
  }
  if (swapped32) {
    *choice = *swapped32;
    return Status::success();
  }
  const Configuration preferred = configuration_for(args, caps.sm_count);
  std::vector<Configuration> order = {preferred, data_parallel_twin(preferred), kMidTokens};
  if (overlaps_epilogue(args, caps.sm_count)) order.insert(order.begin(), kEpilogueOverlap);
  for (const Configuration& c : order) {
    if (std::optional<KernelKey> k = narrowest(args, candidates, c)) {
      *choice = {*k};
      return Status::success();
    }
  }
  return Status::not_supported(std::string("gemm: no compiled sm90 kernel serves ") + to_string(args.a_dtype) + " x " +
                               to_string(args.b_dtype) + " -> " + to_string(args.d_dtype) + " with a " +
                               to_string(required_coverage(args.epilogue)) + " epilogue in this build");
}

}  // namespace epifuse::detail::sm90

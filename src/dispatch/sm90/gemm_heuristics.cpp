// Kernel choice for the sm90 GEMM, by shape class (docs/heuristics.md has the measurements
// behind each rule: a sweep of every bf16 GEMM kernel over odd and even M on Llama-3 8B and 70B
// projections, bench/results/grid/):
//   col_sum / col_amax  -> cooperative 128x128 (a 128-column tile keeps the per-column partial
//                          results in registers without spilling)
//   M <= 8, N < 8192, bias + activation at most
//                       -> the warp-mma kernel (mma.sync warps streaming the weight rows), with 1
//                          or 2 K-loop shares (calls cuBLASLt computes never reach dispatch, but
//                          for decode calls on narrow weights: delegates() below)
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
// cooperative 128x256 1x2 kernel. Within a configuration the narrowest compiled epilogue that
// covers the call runs (cast only, then bias + activation, then the full tree: fewer nodes, less
// time per tile), and without a residual a kernel compiled without C: no C staging in shared
// memory, and TMA stores overlap the next subtile's work.
#include <optional>
#include <tuple>
#include <vector>

#include "dispatch/sm90/heuristics.hpp"

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
constexpr Configuration kDecode = {Schedule::kWarpMma, {16, 8, 64}, {1, 1}, true};
constexpr Configuration kDecodeTwoTokenTiles = {Schedule::kWarpMma, {16, 16, 64}, {1, 1}, true};

// K-loop shares of the warp-mma GEMM: two where its wide CTAs (one per block of 16 weight rows)
// are few, or few and long; otherwise one. In the bench sweep at 1-8 tokens (H100, 51 catalogue
// shapes with N < 8192) this ran within 6 % of the fastest of 1, 2, 4 and 8 shares
// (bench/results/tuning/issue9/decode-gemm/).
int decode_splits(std::int64_t N, std::int64_t K) {
  const std::int64_t blocks = ceil_div(N, 16);
  return blocks < 128 || (blocks == 128 && K >= 4096) ? 2 : 1;
}

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

// Up to 8 tokens the warp-mma kernel, where its epilogue serves the call, ran 1.22x the swapped
// 128x64 kernel's speed on geometric mean over 51 catalogue shapes with N < 8192 (bias + GELU,
// 0.99-1.61x; 1.18x plain), and 0.76-1.09x at N >= 8192 (bench/results/tuning/issue9/
// decode-gemm/). Calls cuBLASLt computes are delegated before dispatch: there the warp-mma kernel
// still loses to cuBLASLt in the bench, 0.89-1.07x its speed (geometric mean 0.97, H200, 36 points
// at 1-8 tokens, bench/results/moe/decode-warp-mma/l2-policy/).
constexpr std::int64_t kTwoTokenTilesMaxWeight = std::int64_t{1} << 25;  // elements: 64 MiB in 16 bits

std::optional<KernelKey> decode_key(const GemmArgs& args, const std::vector<KernelKey>& candidates) {
  if (required_coverage(args.epilogue) > EpilogueCoverage::kBiasActivation) return std::nullopt;
  if (args.M <= 8) return narrowest(args, candidates, kDecode);
  if (args.M <= 16 && args.N * args.K <= kTwoTokenTilesMaxWeight) return narrowest(args, candidates, kDecodeTwoTokenTiles);
  return std::nullopt;
}

}  // namespace

// Decode GEMMs on narrow weights without a bias or residual run the warp-mma kernel where two CTAs
// share each block's K loop: H200, plain calls at 1 and 8 tokens, against cuBLASLt's fastest of
// its top four in the same run (bench/results/tuning/issue9/decode-gemm/narrow/): N 1024 with K
// 2048-8192 and N 2048 with K 4096-8192 (10 points, two runs) 1.01-1.67x cuBLASLt's speed. With
// one share (N 2048, K under 4096: 128 CTAs of 4 warps) it was 0.85-1.52x; at N 3072 or K 16384
// it lost at 11 of 12 points (0.89-0.96x). Every other call cuBLASLt expresses runs cuBLASLt.
bool delegates(const GemmArgs& args, const std::vector<KernelKey>& candidates) {
  const Epilogue& e = args.epilogue;
  const bool narrow_decode = args.M <= 8 && args.N >= 1024 && args.N <= 2048 && args.K >= 2048 && args.K <= 8192;
  if (!narrow_decode || decode_splits(args.N, args.K) < 2 || e.col_bias != nullptr || e.residual != nullptr) {
    return true;
  }
  return !decode_key(args, candidates).has_value();
}

bool has_configuration(const KernelKey& key, const Configuration& c) {
  return key.arch == Arch::kSm90 && key.grouping == Grouping::kNone && key.schedule == c.schedule && key.tile.m == c.tile.m && key.tile.n == c.tile.n && key.tile.k == c.tile.k &&
         key.cluster.m == c.cluster.m && key.cluster.n == c.cluster.n && key.swap_ab == c.swap_ab &&
         key.decomposition == c.decomposition;
}

Status choose(const GemmArgs& args, const DeviceCaps& caps, const std::vector<KernelKey>& candidates,
              KernelChoice* choice) {
  if (std::optional<KernelKey> decode = decode_key(args, candidates)) {
    *choice = {*decode};
    choice->splits = decode_splits(args.N, args.K);
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

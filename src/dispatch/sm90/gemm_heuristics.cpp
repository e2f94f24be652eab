// Kernel choice for the sm90 GEMM, by shape class (docs/heuristics.md has the measurements
// behind each rule: a sweep of every bf16 GEMM kernel over odd and even M on Llama-3 8B and 70B
// projections, bench/results/grid/):
//   col_sum / col_amax  -> cooperative 128x128 (a 128-column tile keeps the per-column partial
//                          results in registers without spilling)
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

// The warp-mma kernel's wide CTAs resident per SM (epifuse-warp-mma-probe prints it: 4 on H100).
constexpr std::int64_t kDecodeCtasPerSm = 4;

// K-loop shares of the warp-mma GEMM: the most (up to 8) that keep its wide CTAs, one per block
// of 16 weight rows and share, within one wave; 2 where one share per block is already more. In
// the probe this was the fastest CTA count or within 2 % of it on 15 weights of 19-470 MB
// (bench/results/tuning/issue9/decode-gemm/).
int decode_splits(std::int64_t N, int sm_count) {
  const std::int64_t blocks = ceil_div(N, 16);
  const std::int64_t slots = kDecodeCtasPerSm * sm_count;
  if (blocks > slots) return 2;
  int splits = 1;
  while (splits < 8 && blocks * splits * 2 <= slots) splits *= 2;
  return splits;
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

}  // namespace

std::optional<KernelChoice> decode_choice(const GemmArgs& args, const DeviceCaps& caps,
                                          const std::vector<KernelKey>& candidates) {
  const Epilogue& e = args.epilogue;
  if (args.M > 8 || required_coverage(e) > EpilogueCoverage::kBiasActivation) return std::nullopt;
  // A 16-bit bias would be widened by a kernel of its own first, which costs what the decode
  // kernel saves.
  if (e.col_bias != nullptr && e.col_bias_dtype != DType::kFP32) return std::nullopt;
  std::optional<KernelKey> key = narrowest(args, candidates, kDecode);
  if (!key) return std::nullopt;
  KernelChoice choice{*key};
  choice.splits = decode_splits(args.N, caps.sm_count);
  return choice;
}

bool decode_beats_cublaslt(const GemmArgs& args, const DeviceCaps& caps, const std::vector<KernelKey>& candidates) {
  return decode_choice(args, caps, candidates).has_value();
}

bool has_configuration(const KernelKey& key, const Configuration& c) {
  return key.arch == Arch::kSm90 && key.grouping == Grouping::kNone && key.schedule == c.schedule && key.tile.m == c.tile.m && key.tile.n == c.tile.n && key.tile.k == c.tile.k &&
         key.cluster.m == c.cluster.m && key.cluster.n == c.cluster.n && key.swap_ab == c.swap_ab &&
         key.decomposition == c.decomposition;
}

Status choose(const GemmArgs& args, const DeviceCaps& caps, const std::vector<KernelKey>& candidates,
              KernelChoice* choice) {
  if (std::optional<KernelChoice> decode = decode_choice(args, caps, candidates)) {
    *choice = *decode;
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

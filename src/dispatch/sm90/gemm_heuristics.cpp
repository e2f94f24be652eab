// Kernel choice for the sm90 GEMM, by shape class (docs/heuristics.md has the measurements
// behind each rule):
//   col_sum / col_amax  -> cooperative 128x128 (a 128-column tile keeps the per-column partial
//                          results in registers without spilling)
//   M <= 64             -> swapped 128x64 tile: the weight fills wgmma's 64-row side, the few
//                          tokens its N side; memory-bound, so every SM streams weight tiles
//   M <= 256            -> cooperative 128x256, cluster 1x2: the pair shares one A tile; a 2x1
//                          cluster would leave half of each cluster without rows
//   otherwise           -> cooperative 128x256, cluster 2x1 (B tiles multicast to 2 CTAs)
// A dtype combination compiled with fewer kernels runs its cooperative 128x256 1x2 kernel where
// its shape class has none. Within a configuration the narrowest compiled epilogue that covers
// the call runs (cast only, then bias + activation, then the full tree: fewer nodes, less time
// per tile), and without a residual a kernel compiled without C: no C staging in shared memory,
// and TMA stores overlap the next subtile's work.
#include <optional>
#include <tuple>

#include "dispatch/sm90/heuristics.hpp"

namespace epifuse::detail::sm90 {
namespace {

constexpr Configuration kColumnReductions = {Schedule::kCooperative, {128, 128, 64}, {1, 1}, false};
constexpr Configuration kFewTokens = {Schedule::kCooperative, {128, 64, 128}, {1, 1}, true};
constexpr Configuration kMidTokens = {Schedule::kCooperative, {128, 256, 64}, {1, 2}, false};
constexpr Configuration kManyTokens = {Schedule::kCooperative, {128, 256, 64}, {2, 1}, false};

Configuration configuration_for(const GemmArgs& args) {
  if (args.epilogue.has_column_reductions()) return kColumnReductions;
  if (args.M <= 64) return kFewTokens;
  if (args.M <= 256) return kMidTokens;
  return kManyTokens;
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

bool has_configuration(const KernelKey& key, const Configuration& c) {
  return key.arch == Arch::kSm90 && key.schedule == c.schedule && key.tile.m == c.tile.m && key.tile.n == c.tile.n && key.tile.k == c.tile.k &&
         key.cluster.m == c.cluster.m && key.cluster.n == c.cluster.n && key.swap_ab == c.swap_ab &&
         key.decomposition == c.decomposition;
}

Status choose(const GemmArgs& args, const DeviceCaps&, const std::vector<KernelKey>& candidates,
              KernelChoice* choice) {
  for (const Configuration& c : {configuration_for(args), kMidTokens}) {
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

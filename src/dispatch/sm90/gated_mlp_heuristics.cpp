// Kernel choice for the sm90 fused gated MLP, by the number of tokens M and how M fills 128-row
// token tiles (docs/heuristics.md has the measurements: a sweep of every bf16 gated kernel over
// odd and even M on three models, bench/results/grid/):
//   M <= 64    -> swapped 128x32: packed weight rows on wgmma's 64-row side, the few tokens on
//                 its N side
//   M <= 128   -> pingpong 128x128, cluster 1x2
//   M <= 192   -> cooperative 128x256, cluster 1x2 (two token tiles, the second mostly padding:
//                 the wide tile halves the tile count)
//   M > 2048 with a packed weight of 2 GB or more (Llama-405B class)
//              -> cooperative 128x256, cluster 1x2
//   M <= 4096, t = ceil(M / 128) token tiles:
//     t even   -> swapped pingpong 128x128, cluster 1x2 along the tokens: each weight tile is
//                 multicast to the pair, so memory streams it half as often
//     t odd, the last tile at most a quarter full
//              -> cooperative 128x256, cluster 1x2
//     t odd    -> pingpong 128x128, cluster 1x2
//   otherwise  -> pingpong 128x128, cluster 1x2
// A cluster of 2 along M pads an odd t to even, and the padded tile costs a whole one; worse,
// its CTAs run ahead of the others, which breaks the L2 reuse of weight tiles: at 777x28672x8192
// the 2x1 kernel read 3.2 GB from DRAM for a 0.94 GB weight (ncu), 1.24x the time of M = 1024.
// An element type compiled with fewer kernels (fp16) falls back to its swapped 128x64 kernel
// (M <= 64) or its cooperative 128x256 1x2 kernel.
#include "dispatch/sm90/heuristics.hpp"

namespace epifuse::detail::sm90 {
namespace {

constexpr Configuration kSwapped32 = {Schedule::kCooperative, {128, 32, 128}, {1, 1}, true};
constexpr Configuration kSwapped64 = {Schedule::kCooperative, {128, 64, 128}, {1, 1}, true};
constexpr Configuration kSwappedPingpong1x2 = {Schedule::kPingpong, {128, 128, 64}, {1, 2}, true};
constexpr Configuration kPingpong1x2 = {Schedule::kPingpong, {128, 128, 64}, {1, 2}, false};
constexpr Configuration kCooperative1x2 = {Schedule::kCooperative, {128, 256, 64}, {1, 2}, false};

constexpr double kLargeWeightBytes = 2e9;
constexpr std::int64_t kTokenTile = 128;

Configuration configuration_for(const GatedMlpArgs& args) {
  const double weight_bytes = 2.0 * static_cast<double>(args.w.N) * static_cast<double>(args.w.K) *
                              static_cast<double>(dtype_bytes(args.w.dtype));
  if (args.M <= 64) return kSwapped32;
  if (args.M <= 128) return kPingpong1x2;
  if (args.M <= 192) return kCooperative1x2;
  if (args.M > 2048 && weight_bytes >= kLargeWeightBytes) return kCooperative1x2;
  if (args.M > 4096) return kPingpong1x2;
  const std::int64_t tiles = (args.M + kTokenTile - 1) / kTokenTile;
  const std::int64_t last_tile_rows = args.M - (tiles - 1) * kTokenTile;
  if (tiles % 2 == 0) return kSwappedPingpong1x2;
  return last_tile_rows <= kTokenTile / 4 ? kCooperative1x2 : kPingpong1x2;
}

}  // namespace

Status choose(const GatedMlpArgs& args, const DeviceCaps&, const std::vector<KernelKey>& candidates,
              KernelChoice* choice) {
  const Configuration fallback = args.M <= 64 ? kSwapped64 : kCooperative1x2;
  for (const Configuration& c : {configuration_for(args), fallback}) {
    for (const KernelKey& k : candidates) {
      if (k.op == Op::kGatedMlp && k.a == args.x_dtype && k.b == args.w.dtype && k.d == args.out_dtype && has_configuration(k, c)) {
        *choice = {k};
        return Status::success();
      }
    }
  }
  return Status::not_supported(std::string("gated_mlp: no compiled sm90 kernel serves ") + to_string(args.x_dtype) +
                               " in this build");
}

}  // namespace epifuse::detail::sm90

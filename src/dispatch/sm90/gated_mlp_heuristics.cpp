// Kernel choice for the sm90 fused gated MLP, by the number of tokens M and how many padded rows
// each token tiling computes (docs/heuristics.md has the measurements: sweeps of every bf16 gated
// kernel over odd and even M on three models, bench/results/tuning/issue9/):
//   M <= 64    -> swapped 128x32: packed weight rows on wgmma's 64-row side, the few tokens on
//                 its N side
//   M <= 128   -> pingpong 128x128, cluster 1x2
//   M > 2048 with a packed weight of 2 GB or more (Llama-405B class)
//              -> cooperative 128x256, cluster 1x2
//   M <= 4096  -> the tiling that computes the fewest rows, ties in this order:
//                 swapped pingpong 128x128, cluster 1x2 along the tokens (an even number of
//                 128-token tiles; each weight tile is multicast to the pair, so memory streams it
//                 half as often);
//                 unswapped 128-row tiles (any number): the cooperative 128x256 1x2 while the tiles
//                 are few (t <= 7) and the last one at most half full, else the pingpong 128x128 1x2;
//                 swapped pingpong 128x96, cluster 1x2 (an even number of 96-token tiles; up to
//                 640 tokens, as far as it was swept)
//   otherwise  -> pingpong 128x128, cluster 1x2
// A cluster of 2 along M pads an odd t to even, and the padded tile costs a whole one; worse,
// its CTAs run ahead of the others, which breaks the L2 reuse of weight tiles: at 777x28672x8192
// the 2x1 kernel read 3.2 GB from DRAM for a 0.94 GB weight (ncu), 1.24x the time of M = 1024.
// An element type compiled with fewer kernels (fp16) falls back to its swapped 128x64 kernel
// (M <= 64) or its cooperative 128x256 1x2 kernel.
#include <algorithm>

#include "dispatch/sm90/heuristics.hpp"

namespace epifuse::detail::sm90 {
namespace {

constexpr Configuration kSwapped32 = {Schedule::kCooperative, {128, 32, 128}, {1, 1}, true};
constexpr Configuration kSwapped64 = {Schedule::kCooperative, {128, 64, 128}, {1, 1}, true};
constexpr Configuration kSwappedPingpong1x2 = {Schedule::kPingpong, {128, 128, 64}, {1, 2}, true};
constexpr Configuration kSwappedPingpong96 = {Schedule::kPingpong, {128, 96, 64}, {1, 2}, true};
constexpr Configuration kPingpong1x2 = {Schedule::kPingpong, {128, 128, 64}, {1, 2}, false};
constexpr Configuration kCooperative1x2 = {Schedule::kCooperative, {128, 256, 64}, {1, 2}, false};

constexpr double kLargeWeightBytes = 2e9;

// Rows a tiling of `tile` tokens computes, with `pair` tiles per cluster along the tokens.
std::int64_t padded_rows(std::int64_t M, std::int64_t tile, std::int64_t pair) {
  return ceil_div(ceil_div(M, tile), pair) * pair * tile;
}

Configuration configuration_for(const GatedMlpArgs& args) {
  const double weight_bytes = 2.0 * static_cast<double>(args.w.N) * static_cast<double>(args.w.K) *
                              static_cast<double>(dtype_bytes(args.w.dtype));
  if (args.M <= 64) return kSwapped32;
  if (args.M <= 128) return kPingpong1x2;
  if (args.M > 2048 && weight_bytes >= kLargeWeightBytes) return kCooperative1x2;
  if (args.M > 4096) return kPingpong1x2;
  const std::int64_t swapped = padded_rows(args.M, 128, 2);
  const std::int64_t unswapped = padded_rows(args.M, 128, 1);
  // Swept up to 641 tokens only; beyond, the tilings pad within a few percent of each other.
  const std::int64_t swapped96 = args.M <= 640 ? padded_rows(args.M, 96, 2) : std::int64_t{1} << 40;
  if (swapped <= std::min(unswapped, swapped96)) return kSwappedPingpong1x2;
  if (unswapped <= swapped96) {
    const std::int64_t tiles = unswapped / 128;
    const std::int64_t last_tile_rows = args.M - (tiles - 1) * 128;
    return tiles <= 7 && last_tile_rows <= 64 ? kCooperative1x2 : kPingpong1x2;
  }
  return kSwappedPingpong96;
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

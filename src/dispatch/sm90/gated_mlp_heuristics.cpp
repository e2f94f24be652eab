// Kernel choice for the sm90 fused gated MLP, by the number of tokens M (docs/heuristics.md has
// the measurements):
//   M <= 64    -> swapped 128x32 tile: packed weight rows on wgmma's 64-row side, the few tokens
//                 on its N side (a 64-token tile trailed it by 4-27 % at M <= 32)
//   M <= 128   -> pingpong 128x128, cluster 1x2
//   M > 2048 with a packed weight of 2 GB or more (Llama-405B class)
//              -> cooperative 128x256, cluster 1x2: pingpong trailed it by 3-6 % (its larger tile
//                 loads 3/4 of the operand bytes per FLOP of a 128x128 tile: a likely cause, not measured)
//   M <= 4096  -> pingpong 128x128, cluster 2x1 (weight tiles multicast to the 2 CTAs of a cluster)
//   otherwise  -> pingpong 128x128, cluster 1x2 (the 2x1 cluster lost 3-33 % at M >= 8192, most with large N·K)
// Pingpong overlaps one warpgroup's gated epilogue (activation, pairing, smem and TMA stores) with
// the other's mainloop; the cooperative kernels, where the tensor cores wait for the epilogue,
// trailed it by 0.2-20 % at 256 <= M <= 4096. An element type compiled with fewer kernels (fp16)
// falls back to its swapped 128x64 kernel (M <= 64) or its cooperative 128x256 1x2 kernel.
#include "dispatch/sm90/heuristics.hpp"

namespace epifuse::detail::sm90 {
namespace {

constexpr Configuration kSwapped32 = {Schedule::kCooperative, {128, 32, 128}, {1, 1}, true};
constexpr Configuration kSwapped64 = {Schedule::kCooperative, {128, 64, 128}, {1, 1}, true};
constexpr Configuration kPingpong1x2 = {Schedule::kPingpong, {128, 128, 64}, {1, 2}, false};
constexpr Configuration kPingpong2x1 = {Schedule::kPingpong, {128, 128, 64}, {2, 1}, false};
constexpr Configuration kCooperative1x2 = {Schedule::kCooperative, {128, 256, 64}, {1, 2}, false};

constexpr double kLargeWeightBytes = 2e9;

Configuration configuration_for(const GatedMlpArgs& args) {
  const double weight_bytes = 2.0 * static_cast<double>(args.w.N) * static_cast<double>(args.w.K) *
                              static_cast<double>(dtype_bytes(args.w.dtype));
  if (args.M <= 64) return kSwapped32;
  if (args.M <= 128) return kPingpong1x2;
  if (args.M > 2048 && weight_bytes >= kLargeWeightBytes) return kCooperative1x2;
  if (args.M <= 4096) return kPingpong2x1;
  return kPingpong1x2;
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

// Kernel choice for the fused gated MLP, by the number of tokens M (docs/heuristics.md has the
// measurements):
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
// trailed it by 0.2-20 % at 256 <= M <= 4096. A dtype with fewer kernels (fp16) falls back to its
// cooperative 1x2 kernel (M > 64) or its swapped 128x64 kernel.
#include "dispatch/sm90_gated_heuristics.hpp"

#include <string>

namespace epifuse::detail {
namespace {

const Sm90GatedKernelEntry* find(const std::string& name) {
  for (const Sm90GatedKernelEntry* k : sm90_gated_kernels()) {
    if (k->info.name == name) return k;
  }
  return nullptr;
}

constexpr double kLargeWeightBytes = 2e9;

const char* configuration_for(const GatedArgs& args) {
  const std::int64_t M = args.M;
  const double weight_bytes = 2.0 * static_cast<double>(args.w.N) * static_cast<double>(args.w.K) * 2.0;
  if (M <= 64) return "swap_coop_128x32x128_c1x1";
  if (M <= 128) return "pingpong_128x128x64_c1x2";
  if (M > 2048 && weight_bytes >= kLargeWeightBytes) return "coop_128x256x64_c1x2";
  if (M <= 4096) return "pingpong_128x128x64_c2x1";
  return "pingpong_128x128x64_c1x2";
}

}  // namespace

Status choose_sm90_gated(const GatedArgs& args, const Sm90GatedKernelEntry** kernel) {
  if (args.kernel != nullptr) {
    const Sm90GatedKernelEntry* k = find(args.kernel);
    if (k == nullptr) {
      return Status::invalid_argument(std::string("gated_mlp: kernel '") + args.kernel +
                                      "' is not compiled; gated_kernels() lists the names");
    }
    if (k->info.dtype != args.w.dtype) {
      return Status::invalid_argument(std::string("gated_mlp: kernel '") + args.kernel + "' is compiled for " +
                                      to_string(k->info.dtype));
    }
    *kernel = k;
    return Status::success();
  }
  const std::string prefix = std::string("sm90_gated_") + to_string(args.w.dtype) + "_";
  const Sm90GatedKernelEntry* k = find(prefix + configuration_for(args));
  if (k == nullptr) k = find(prefix + (args.M <= 64 ? "swap_coop_128x64x128_c1x1" : "coop_128x256x64_c1x2"));
  if (k == nullptr) return Status::internal("gated_mlp: no compiled kernel for " + prefix + configuration_for(args));
  *kernel = k;
  return Status::success();
}

}  // namespace epifuse::detail

// Kernel choice for the fused gated MLP, by the number of tokens M (docs/heuristics.md has the
// measurements):
//   M <= 64   -> swapped 128x64 tile: packed weight rows on wgmma's 64-row side, tokens on N;
//                memory-bound, every SM streams its share of the weight
//   M <= 256  -> cooperative 128x256, cluster 1x2 (the pair shares one x tile)
//   otherwise -> cooperative 128x256, cluster 2x1 (weight tiles multicast to 2 CTAs)
// A dtype with fewer kernels falls back to its cooperative 1x2 kernel.
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

const char* configuration_for(std::int64_t M) {
  if (M <= 64) return "swap_coop_128x64x128_c1x1";
  if (M <= 256) return "coop_128x256x64_c1x2";
  return "coop_128x256x64_c2x1";
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
  const Sm90GatedKernelEntry* k = find(prefix + configuration_for(args.M));
  if (k == nullptr) k = find(prefix + "coop_128x256x64_c1x2");
  if (k == nullptr) return Status::internal("gated_mlp: no compiled kernel for " + prefix + configuration_for(args.M));
  *kernel = k;
  return Status::success();
}

}  // namespace epifuse::detail

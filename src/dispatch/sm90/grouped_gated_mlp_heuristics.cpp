// The grouped gated MLP's kernel. The experts' row counts live on the device, so the choice reads
// the mean rows per expert, T / E: few rows per expert (decode, many experts) put the weight on
// wgmma's 128-row side and the rows on its N side (swapped), as the dense op does at few tokens.
// A first rule, not yet tuned on the device.
#include <string>

#include "dispatch/sm90/heuristics.hpp"

namespace epifuse::detail::sm90 {
namespace {

constexpr std::int64_t kSwappedMeanRowsMax = 64;

}  // namespace

Status choose(const GroupedGatedMlpArgs& args, const DeviceCaps&, const std::vector<KernelKey>& candidates,
              KernelChoice* choice) {
  const GatedMlpArgs& g = args.gated;
  const bool want_swapped = g.M <= kSwappedMeanRowsMax * args.experts;
  const KernelKey* fallback = nullptr;
  for (const KernelKey& k : candidates) {
    if (k.op != Op::kGatedMlp || k.arch != Arch::kSm90 || k.grouping != Grouping::kGrouped || k.a != g.x_dtype ||
        k.b != g.w.dtype || k.d != g.out_dtype) {
      continue;
    }
    if (k.swap_ab == want_swapped) {
      *choice = {k};
      return Status::success();
    }
    if (fallback == nullptr) fallback = &k;
  }
  if (fallback != nullptr) {
    *choice = {*fallback};
    return Status::success();
  }
  return Status::not_supported(std::string("grouped_gated_mlp: no compiled sm90 grouped kernel serves ") +
                               to_string(g.x_dtype) + " in this build");
}

}  // namespace epifuse::detail::sm90

// The grouped gated MLP's launches. Each expert's row count is known on the device only, so a
// call runs both grouped kernels, each over the experts it suits: the swapped one (the weight on
// wgmma's 128-row side, 32 rows per tile) over experts of at most 64 rows, the unswapped one
// (128-row tiles) over the larger ones; the setup kernel of each launch gives the other experts no
// rows. H200, DeepSeek-V3 experts (K 7168, N 2048), each kernel forced over every expert
// (bench/results/moe/grouped-probe-b1d9340.log): uniform routing, about 32 rows per expert,
// swapped 3529 µs against unswapped 4287; about 128, 7784 against 6142; every row on 8 of 256
// experts (1024 each), 1817 against 744. Both launches: 3537, 6145 and 752 µs.
#include <string>

#include "dispatch/sm90/heuristics.hpp"

namespace epifuse::detail::sm90 {
namespace {

constexpr std::int32_t kSwappedRowsMax = 64;

}  // namespace

Status choose(const GroupedGatedMlpArgs& args, const DeviceCaps&, const std::vector<KernelKey>& candidates,
              std::vector<GroupedLaunch>* launches) {
  const GatedMlpArgs& g = args.gated;
  const KernelKey* swapped = nullptr;
  const KernelKey* unswapped = nullptr;
  for (const KernelKey& k : candidates) {
    if (k.op != Op::kGatedMlp || k.arch != Arch::kSm90 || k.grouping != Grouping::kGrouped || k.a != g.x_dtype ||
        k.b != g.w.dtype || k.d != g.out_dtype) {
      continue;
    }
    const KernelKey*& slot = k.swap_ab ? swapped : unswapped;
    if (slot == nullptr) slot = &k;
  }
  // With at most 64 rows in all, no expert can have more: the unswapped launch would have no rows
  // (it cost 8-18 µs at 8 rows, the probe's 1-token rows, where the swapped kernel ran 134 µs).
  if (swapped != nullptr && g.M <= kSwappedRowsMax) {
    launches->push_back({{*swapped}, 1, kSwappedRowsMax});
  } else if (swapped != nullptr && unswapped != nullptr) {
    launches->push_back({{*swapped}, 1, kSwappedRowsMax});
    launches->push_back({{*unswapped}, kSwappedRowsMax + 1, INT32_MAX});
  } else if (swapped != nullptr || unswapped != nullptr) {
    launches->push_back({{swapped != nullptr ? *swapped : *unswapped}});
  } else {
    return Status::not_supported(std::string("grouped_gated_mlp: no compiled sm90 grouped kernel serves ") +
                                 to_string(g.x_dtype) + " in this build");
  }
  return Status::success();
}

}  // namespace epifuse::detail::sm90

// The launches of the grouped ops (the gated MLP and the GEMM by one rule). Each expert's row
// count is known on the device only, so a call runs each grouped kernel over the experts it suits
// (the setup kernel of each launch gives the other experts no rows): the swapped one (the weight
// on wgmma's 128-row side, 32 rows per tile) over experts of at most 64 rows, the unswapped
// 128x128 one over 65-256 rows, the unswapped 128x256 1x2 one over larger experts (more rows per
// weight tile read; bench/results/moe/README.md has its measurements). H200, DeepSeek-V3 experts
// (K 7168, N 2048), each kernel forced over every expert (bench/results/moe/grouped-probe-b1d9340.log):
// uniform routing, about 32 rows per expert, swapped 3529 µs against unswapped 128x128 4287;
// about 128, 7784 against 6142; every row on 8 of 256 experts (1024 each), 1817 against 744.
#include <string>

#include "dispatch/sm90/heuristics.hpp"

namespace epifuse::detail::sm90 {
namespace {

constexpr std::int32_t kSwappedRowsMax = 64;
constexpr std::int32_t kMidRowsMax = 256;

// Columns of the weight one cluster covers per tile.
int cluster_columns(const KernelKey& k) { return k.tile.n * k.cluster.n; }

// The launches of a grouped call of `rows` rows in all among the grouped `op` kernels of the types.
Status choose_grouped(const char* op_name, Op op, DType a, DType b, DType d, std::int64_t rows,
                      const std::vector<KernelKey>& candidates, std::vector<GroupedLaunch>* launches) {
  const KernelKey* swapped = nullptr;
  const KernelKey* mid = nullptr;    // the unswapped kernel of the narrowest cluster tile
  const KernelKey* large = nullptr;  // the unswapped kernel of the widest
  for (const KernelKey& k : candidates) {
    if (k.op != op || k.arch != Arch::kSm90 || k.grouping != Grouping::kGrouped || k.a != a || k.b != b || k.d != d) {
      continue;
    }
    if (k.swap_ab) {
      if (swapped == nullptr) swapped = &k;
      continue;
    }
    if (mid == nullptr || cluster_columns(k) < cluster_columns(*mid)) mid = &k;
    if (large == nullptr || cluster_columns(k) > cluster_columns(*large)) large = &k;
  }
  if (swapped == nullptr && mid == nullptr) {
    return Status::not_supported(std::string(op_name) + ": no compiled sm90 grouped kernel serves " + to_string(a) +
                                 " in this build");
  }
  if (swapped == nullptr || mid == nullptr) {  // one kind only: it runs every expert
    launches->push_back({{swapped != nullptr ? *swapped : *mid}});
    return Status::success();
  }
  // With at most 64 rows in all, no expert can have more: the unswapped launch would have no rows
  // (it cost 8-18 µs at 8 rows, the probe's 1-token rows, where the swapped kernel ran 134 µs).
  launches->push_back({{*swapped}, 1, kSwappedRowsMax});
  if (rows <= kSwappedRowsMax) return Status::success();
  if (large == mid || rows <= kMidRowsMax) {
    launches->push_back({{*mid}, kSwappedRowsMax + 1, INT32_MAX});
  } else {
    launches->push_back({{*mid}, kSwappedRowsMax + 1, kMidRowsMax});
    launches->push_back({{*large}, kMidRowsMax + 1, INT32_MAX});
  }
  return Status::success();
}

}  // namespace

Status choose(const GroupedGemmArgs& args, const DeviceCaps&, const std::vector<KernelKey>& candidates,
              std::vector<GroupedLaunch>* launches) {
  const GemmArgs& g = args.gemm;
  return choose_grouped("grouped_gemm", Op::kGemm, g.a_dtype, g.b_dtype, g.d_dtype, g.M, candidates, launches);
}

Status choose(const GroupedGatedMlpArgs& args, const DeviceCaps&, const std::vector<KernelKey>& candidates,
              std::vector<GroupedLaunch>* launches) {
  const GatedMlpArgs& g = args.gated;
  return choose_grouped("grouped_gated_mlp", Op::kGatedMlp, g.x_dtype, g.w.dtype, g.out_dtype, g.M, candidates,
                        launches);
}

}  // namespace epifuse::detail::sm90

// The launches of the grouped ops (the gated MLP and the GEMM by one rule). Each expert's row
// count is known on the device only, so a call runs each grouped kernel over the experts it suits
// (the setup kernel of each launch gives the other experts no rows): the swapped one (the weight
// on wgmma's 128-row side, 32 rows per tile) over experts of at most 64 rows, the unswapped one
// of the widest cluster tile (128x256, a 1x2 cluster) over the rest. H200, grouped gate/up, each
// kernel forced over every expert (bench/results/moe/grouped-probe-72b18d1.log): the 128x256 1x2
// kernel ran 1.06-1.42x faster than the 128x128 one at 1024 and 4096 tokens on DeepSeek-V3,
// Qwen2-57B-A14B and Mixtral experts (uniform, Zipf, hot), 1.24x with about 128 rows per expert
// (DeepSeek-V3, 4096 tokens, uniform), 0.94-0.95x with 2-8 experts of 256 rows (hot routing on
// Qwen2-57B and Mixtral, few tiles for the GPU); the 128x128 kernels were then dropped from the
// table.
// Swapped against unswapped 128x128 (grouped-probe-b1d9340.log): about 32 rows per expert 3529
// against 4287 µs; every row on 8 of 256 experts (1024 each), 1817 against 744.
#include <algorithm>
#include <string>
#include <vector>

#include "dispatch/sm90/heuristics.hpp"

namespace epifuse::detail::sm90 {
namespace {

constexpr std::int32_t kSwappedRowsMax = 64;

// Columns of the weight one cluster covers per tile.
int cluster_columns(const KernelKey& k) { return k.tile.n * k.cluster.n; }

// The scheduler walks each expert's tiles along the rows first, so that the CTAs running at once
// share one weight tile and each weight is read from memory about once (an expert's activations
// are the small operand and stay in L2). The grouped scheduler cannot pick this itself: it never
// sees the experts' shapes, and its heuristic rasters along the weight for the unswapped kernels,
// which then read a weight once per 128 rows. H200, grouped gate/up, unswapped 128x256 1x2 forced
// (bench/results/moe/grouped-probe-rasters-fd74f5a.log): along the rows 1.34-1.52x faster on
// Mixtral experts at 1024 and 4096 tokens, 0.98-1.04x on Qwen2-57B-A14B, 0.94-1.02x on
// DeepSeek-V3 (0.94x: hot routing, 4096 rows on each of 8 experts); the swapped kernel (rows on
// wgmma's N side) already rasters along them, and along the weight ran up to 2.2x slower.
KernelChoice rows_first(const KernelKey& k) {
  return {k, k.swap_ab ? RasterOrder::kAlongN : RasterOrder::kAlongM};
}

// The most rows any expert of a call of `rows` rows can have: the caller's bound, if it gave one.
std::int64_t expert_rows_bound(std::int64_t rows, std::int64_t max_expert_rows) {
  return max_expert_rows > 0 ? std::min(rows, max_expert_rows) : rows;
}

// A grouped kernel and the most rows of an expert it takes.
struct Tier {
  const KernelKey* key = nullptr;
  std::int32_t rows_max = 0;
};

// The launches of a grouped call among the grouped `op` kernels of the types, no expert having more
// than `expert_rows_max` rows: the narrowest swapped kernel over experts of at most 64 rows, a wider
// swapped one (one token tile) over those its tile holds, the unswapped one over the rest. The
// launch of the largest experts the bound admits takes every expert above its predecessors', so
// that one past a caller's wrong bound is still computed; launches past it would get no expert and
// are left out (an empty launch cost 8-18 µs at 8 rows, the probe's 1-token rows).
Status choose_grouped(const char* op_name, Op op, DType a, DType b, DType d, std::int64_t expert_rows_max,
                      const std::vector<KernelKey>& candidates, std::vector<GroupedLaunch>* launches) {
  const KernelKey* narrow = nullptr;     // swapped, the narrowest token tile
  const KernelKey* wide = nullptr;       // swapped, the widest token tile
  const KernelKey* unswapped = nullptr;  // of the widest cluster tile
  for (const KernelKey& k : candidates) {
    if (k.op != op || k.arch != Arch::kSm90 || k.grouping != Grouping::kGrouped || k.a != a || k.b != b || k.d != d) {
      continue;
    }
    if (k.swap_ab) {
      if (narrow == nullptr || k.tile.n < narrow->tile.n) narrow = &k;
      if (wide == nullptr || k.tile.n > wide->tile.n) wide = &k;
    } else if (unswapped == nullptr || cluster_columns(k) > cluster_columns(*unswapped)) {
      unswapped = &k;
    }
  }
  std::vector<Tier> tiers;
  if (narrow != nullptr) tiers.push_back({narrow, kSwappedRowsMax});
  if (wide != nullptr && wide != narrow && wide->tile.n > kSwappedRowsMax) tiers.push_back({wide, wide->tile.n});
  if (unswapped != nullptr) tiers.push_back({unswapped, INT32_MAX});
  if (tiers.empty()) {
    return Status::not_supported(std::string(op_name) + ": no compiled sm90 grouped kernel serves " + to_string(a) +
                                 " in this build");
  }
  std::int32_t rows_min = 1;
  for (std::size_t i = 0; i < tiers.size(); ++i) {
    const bool last = i + 1 == tiers.size() || tiers[i].rows_max >= expert_rows_max;
    launches->push_back({rows_first(*tiers[i].key), rows_min, last ? INT32_MAX : tiers[i].rows_max});
    if (last) break;
    rows_min = tiers[i].rows_max + 1;
  }
  return Status::success();
}

}  // namespace

Status choose(const GroupedGemmArgs& args, const DeviceCaps&, const std::vector<KernelKey>& candidates,
              std::vector<GroupedLaunch>* launches) {
  const GemmArgs& g = args.gemm;
  return choose_grouped("grouped_gemm", Op::kGemm, g.a_dtype, g.b_dtype, g.d_dtype,
                        expert_rows_bound(g.M, args.max_expert_rows), candidates, launches);
}

Status choose(const GroupedGatedMlpArgs& args, const DeviceCaps&, const std::vector<KernelKey>& candidates,
              std::vector<GroupedLaunch>* launches) {
  const GatedMlpArgs& g = args.gated;
  return choose_grouped("grouped_gated_mlp", Op::kGatedMlp, g.x_dtype, g.w.dtype, g.out_dtype,
                        expert_rows_bound(g.M, args.max_expert_rows), candidates, launches);
}

}  // namespace epifuse::detail::sm90

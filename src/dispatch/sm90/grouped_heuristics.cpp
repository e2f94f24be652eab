// The launches of the grouped ops (the gated MLP and the GEMM by one rule). Each expert's row count
// is known on the device only, so a call runs each grouped kernel over the experts it suits (the
// call's one setup kernel gives each launch its experts and the others no rows, by the rule of
// GroupTiers): the narrowest swapped one (the weight on wgmma's 128-row side, 32 rows per tile)
// over experts of at most 64 rows, then, by least padding, the unswapped one of the widest cluster
// tile (128x256, a 1x2 cluster), the wide swapped ones (one token tile of 160 or 208 rows) and the
// paired swapped one (two 128-row token tiles per cluster; experts whose last pair is full enough).
// H200, grouped gate/up, each kernel forced over every expert
// (bench/results/moe/grouped-probe-72b18d1.log): the 128x256 1x2 kernel ran 1.06-1.42x faster than
// the 128x128 one at 1024 and 4096 tokens on DeepSeek-V3, Qwen2-57B-A14B and Mixtral experts
// (uniform, Zipf, hot), 1.24x with about 128 rows per expert (DeepSeek-V3, 4096 tokens, uniform),
// 0.94-0.95x with 2-8 experts of 256 rows (hot routing on Qwen2-57B and Mixtral, few tiles for the
// GPU); the 128x128 kernels were then dropped from the table.
// Swapped against unswapped 128x128 (grouped-probe-b1d9340.log): about 32 rows per expert 3529
// against 4287 µs; every row on 8 of 256 experts (1024 each), 1817 against 744.
#include <algorithm>
#include <string>
#include <vector>

#include "dispatch/sm90/heuristics.hpp"
#include "kernels/sm90/warp_mma_grouped_rules.hpp"

namespace epifuse::detail::sm90 {
namespace {

constexpr std::int32_t kSwappedRowsMax = 64;
// What the host knows of a grouped call: its rows, experts, each expert's weight rows (the GEMM's
// N: 2N for the gated MLP) and K, and the bound on any expert's rows.
struct GroupedShape {
  std::int64_t rows = 0, experts = 0, weight_rows = 0, K = 0, expert_rows_max = 0;
};

// The warp-mma kernel (one launch, no setup kernel or TMA descriptors, each expert's weight
// streamed once per 8 of its rows) where every expert has at most 2 rows and either the weights of
// the experts that can have rows (at most one per row; a grid row each) are at most 128 MiB or the
// 128x32 CUTLASS kernel would have at most 1.5 tiles per SM; and on large gate/up experts (below).
// H200, each kernel forced (bench/results/moe/decode-warp-mma/): at one token the warp-mma kernel
// took 0.67-0.85x the 128x32 kernel's time on the experts of Qwen3-30B-A3B, OLMoE-1B-7B and
// gpt-oss-20b (25-133 MB), 0.47-0.96x where the 128x32 kernel had 40-192 tiles (down projections
// of Mixtral-8x7B and 8x22B, DBRX and Llama-4 Scout at 1-2 tokens; Scout's gate/up at one token).
// With more rows per expert most of its slots go empty under skewed routing.
// Where the kernel runs its pairs CTAs (gate/up rows under 6144 elements,
// warp_mma_grouped_rules.hpp), it also takes calls on which the 128x32 kernel's tiles would fill
// less than kWarpMmaMaxWaveFill of the SMs over its waves (a short last wave) however many of the
// experts that can have rows have them: at least rows / bound, at most one per row. H200, after
// two cuBLASLt GEMMs over other weights, as a model runs its attention projections before its
// experts (bench/results/moe/decode-warp-mma/l2-policy/): the pairs took 0.93x the 128x32
// kernel's time on Mixtral-8x7B's gate/up at one token (448 tiles: 0.85 of the SMs), 0.96x on
// Qwen2-57B-A14B's (320: 0.81), 0.91x on gpt-oss-20b's at 2 tokens (7 experts, 315 tiles: 0.80);
// where the tiles could fill more they lost or tied (Qwen2-57B-A14B at 2 tokens, 1.05x).
constexpr std::int64_t kWarpMmaRowsMax = 2;
constexpr std::int64_t kWarpMmaTouchedBytesMax = std::int64_t{128} << 20;
constexpr double kWarpMmaFewRowsTilesPerSm = 1.5;
constexpr double kWarpMmaMaxWaveFill = 0.92;
constexpr std::int64_t kWarpMmaSlotsMax = 65535;  // the grid's y

// One 32-row token tile per 128 weight rows of each expert with rows.
std::int64_t few_rows_tiles(const GroupedShape& s, std::int64_t experts) {
  return experts * ((s.weight_rows + 127) / 128);
}

// Whether the 128x32 kernel leaves a short last wave for every count of experts with rows, from
// rows / bound up to `most`.
bool short_last_wave_always(const GroupedShape& s, std::int64_t most, int sm_count) {
  const std::int64_t fewest = std::max<std::int64_t>((s.rows + s.expert_rows_max - 1) / s.expert_rows_max, 1);
  if (fewest > most) return false;
  for (std::int64_t n = fewest; n <= most; ++n) {
    const std::int64_t tiles = few_rows_tiles(s, n);
    const std::int64_t waves = (tiles + sm_count - 1) / sm_count;
    if (static_cast<double>(tiles) >= kWarpMmaMaxWaveFill * static_cast<double>(waves * sm_count)) return false;
  }
  return true;
}

// Whether gate/up on the pairs CTAs serves experts this large with up to kWarpMmaLargeRowsMax rows
// each (one pass over each weight), however many of them have rows. H200, `epifuse-bench moe` with
// cuBLASLt in the same run (bench/results/moe/decode-warp-mma/l2-policy/): Mixtral-8x7B's experts
// (28672 packed rows) at 2 and 4 tokens took 0.95-0.99x the time of the 128x32 kernel that ran
// before, 1.01-1.04x the cuBLASLt loop's speed where that kernel had 0.96-1.03x; at 6 and 8 tokens
// 0.93-0.97x under hot routing (two experts hold all rows) and 0.98-1.01x otherwise, never below
// 1.03x the loop's speed. Llama-4 Scout's (16384 rows) took 1.01-1.09x the 128x32 kernel's time
// with 2-4 experts in the probe, so the bound sits between them.
constexpr std::int64_t kWarpMmaLargeExpertRows = 24576;
constexpr std::int64_t kWarpMmaLargeRowsMax = 8;

bool large_experts_on_pairs(Op op, const GroupedShape& s) {
  return op == Op::kGatedMlp && kernels::sm90::warp_mma::gated_runs_pairs(s.K) &&
         s.weight_rows >= kWarpMmaLargeExpertRows && s.expert_rows_max <= kWarpMmaLargeRowsMax;
}

bool warp_mma_serves(Op op, const GroupedShape& s, DType a, int sm_count) {
  const std::int64_t experts = std::min(s.experts, s.rows);
  if (experts > kWarpMmaSlotsMax) return false;
  if (large_experts_on_pairs(op, s)) return true;
  if (s.expert_rows_max > kWarpMmaRowsMax) return false;
  const std::int64_t touched = experts * s.weight_rows * s.K * static_cast<std::int64_t>(dtype_bytes(a));
  return touched <= kWarpMmaTouchedBytesMax ||
         static_cast<double>(few_rows_tiles(s, experts)) <= kWarpMmaFewRowsTilesPerSm * static_cast<double>(sm_count) ||
         (op == Op::kGatedMlp && kernels::sm90::warp_mma::gated_runs_pairs(s.K) &&
          short_last_wave_always(s, experts, sm_count));
}

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

// The relative cost of a padded row on a wide swapped kernel against the unswapped one, where
// both compute many rows (H200, grouped gate/up, each kernel forced,
// bench/results/moe/grouped-probe-e32a9de.log; 1024 rows on each of 8 DeepSeek-V3 experts: 128x208
// 617.5 µs for 1040 padded rows, 128x256 591 µs for 1024; 777 rows: 128x160 487 µs for 800,
// 128x256 528 µs for 896).
constexpr float kWideRowCost = 1.04f;

// The same for the swapped pingpong kernel whose 1x2 cluster pairs two 128-row token tiles on one
// weight tile (the dense family's kernel for many tokens), counted in whole pairs, and the least
// share of an expert's last pair it takes. H200, grouped gate/up, each kernel forced, random data,
// interleaved (bench/results/moe/probe-random-data/paired-trial-*.log): where the last pair was
// 0.86-1.0 full (2-8 hot experts of 230, 256, 480, 1024, 1500, 4096, 8192 rows) it took
// 0.84-1.00x the 128x256 1x2 kernel's time (Mixtral 0.84-0.93x, Qwen2-57B-A14B 0.84-0.99x,
// DeepSeek-V3 0.93-1.00x); 0.73-0.78 full (192, 200, 450, 700 rows) 0.90-1.07x; 0.56 full or
// less (129, 333, 385, 400, 600 rows) 1.13-1.60x, out of proportion to its padding.
constexpr float kPairedRowCost = 0.92f;
constexpr float kPairedMinLastFill = 0.85f;
// The paired kernel walks an expert's token tiles for one weight tile at a time, so a wave reads
// all of an expert's x once per pair of weight tiles it covers; past L2 that read dominates. H200,
// torch_bench.py moe at 16384 tokens (bench/results/moe/paired-tier-1b3fa15/), 16384 rows on each
// of 8 hot experts: DeepSeek-V3 (224 MiB of x per expert) 0.91x torch._grouped_mm + act·mul with
// the paired kernel, 1.00x without it (a721b0f); Mixtral and Qwen2-57B-A14B (128 and 112 MiB)
// 1.07x against 1.00x. The paired kernel joins only where no expert's x can exceed 128 MiB.
constexpr std::int64_t kPairedMaxExpertActivationBytes = std::int64_t{128} << 20;

// The launch model of the grouped GEMM (GroupTiers::one_launch_tier): each tier's launch runs its
// tiles in whole waves, and the layer's down projection has long K (Mixtral-8x7B: 14336), so a
// launch's short last wave costs nearly as much as a full one; the rule's split of the experts
// over up to four launches then pays for up to four such waves. H200, the down GEMM of three
// models at 256-4096 tokens under three routings, dispatched and each kernel forced over every
// expert (bench/results/moe/down-launch-model/): the rule's launches took up to 1.55x the best
// single kernel's time (Mixtral, two experts of 256 rows: 190.6 µs against 123.1 on the 128x160
// kernel; Mixtral Zipf 1024: 618.1 against 490.9; Qwen2-57B-A14B Zipf 1024: 512.6 against 450.7).
// The constants are fitted to those 27 calls' 135 times (rms error of the model 8.5 %): a wide
// tile's multiply-adds at 2.67 million per µs per SM plus 3 µs a tile, the 128x32 tile's at 1.0
// million, 3.9 MB per µs of weights, x and out, 10 µs per launch; one launch must be modeled 8 %
// faster than the rule's. Not on HBM3 (an H100), where it is not measured. Not on the gated MLP:
// on e132efe's gate/up probe, which had the same four tiers, it would have left the rule at 8 of
// 108 calls for 0.975-1.059x the time (gate_up_check.py there).
constexpr float kWideTileMacsPerUs = 2.67e6f;
constexpr float kFewRowsTileMacsPerUs = 1.0e6f;
constexpr float kWideTileUs = 3.0f;
constexpr float kModelBytesPerUs = 3.9e6f;
constexpr float kModelLaunchUs = 10.0f;
constexpr float kOneLaunchMinSaving = 0.08f;

LaunchModel launch_model(const std::vector<const KernelKey*>& kernels, const GroupTiers& tiers) {
  LaunchModel model;
  model.on = true;
  for (std::size_t t = 0; t < kernels.size(); ++t) {
    const KernelKey& k = *kernels[t];
    const bool few_rows = tiers.few_rows_max > 0 && t == 0;
    model.weight_tile_rows[t] = k.swap_ab ? k.tile.m : k.tile.n;
    model.macs_per_us[t] = few_rows ? kFewRowsTileMacsPerUs : kWideTileMacsPerUs;
    model.tile_us[t] = few_rows ? 0.0f : kWideTileUs;
  }
  model.bytes_per_us = kModelBytesPerUs;
  model.launch_us = kModelLaunchUs;
  model.min_saving = kOneLaunchMinSaving;
  return model;
}

// The launches of a grouped call among the grouped `op` kernels of the types, no expert having more
// than `expert_rows_max` rows. Where warp_mma_serves the call, the warp-mma kernel alone runs every
// expert. Otherwise experts of at most 64 rows run on the narrowest swapped kernel; any
// other on the kernel whose tiles pad its rows least (GroupTiers): the unswapped one (128 rows per
// tile) or a wide swapped one (its token tile's rows), so that 129-160 rows take one 160-row
// tile, not two of 128. H200, grouped gate/up, each kernel forced, `rows` rows on each of 2-8 hot
// experts (bench/results/moe/grouped-probe-e32a9de.log), unswapped 128x256 against the best
// swapped: 129 rows 188.6/235.3/149.1 µs against 141.0/164.2/110.5 (128x160; DeepSeek-V3,
// Mixtral, Qwen2-57B-A14B), 200 rows 189.7/219.2/150.6 against 151.9/182.7/127.8 (128x208),
// 65 rows 142.9/150.8/122.6 against 157.9/193.0/117.8 (128x160).
// The paired kernel takes an expert whose last pair of token tiles is at least kPairedMinLastFill
// full, at kPairedRowCost, and joins only where no expert's x can pass
// kPairedMaxExpertActivationBytes. A wide or paired kernel joins only where the bound admits an
// expert it would take (more rows than the unswapped tile and the narrower wide ones hold); the setup kernel
// gives such a tier's experts to the unswapped kernel when their tiles (pairs for the paired
// kernel) would not fill the SMs once (grouped_setup.cuh), and every launch's CTAs return at once
// when it got no expert.
Status choose_grouped(const char* op_name, Op op, DType a, DType b, DType d, const GroupedShape& shape,
                      const DeviceCaps& caps, const std::vector<KernelKey>& candidates,
                      std::vector<GroupedLaunch>* launches) {
  const int sm_count = caps.sm_count;
  const std::int64_t expert_rows_max = shape.expert_rows_max;
  std::vector<const KernelKey*> swapped;  // one token tile per cluster, the narrowest first
  const KernelKey* unswapped = nullptr;   // of the widest cluster tile
  const KernelKey* paired = nullptr;      // swapped, a cluster's CTAs on two token tiles of one weight tile
  const KernelKey* warp_mma = nullptr;    // no setup kernel, at most 8 rows per expert in one pass
  for (const KernelKey& k : candidates) {
    if (k.op != op || k.arch != Arch::kSm90 || k.grouping != Grouping::kGrouped || k.a != a || k.b != b || k.d != d) {
      continue;
    }
    if (k.schedule == Schedule::kWarpMma) {
      if (warp_mma == nullptr) warp_mma = &k;
    } else if (k.swap_ab && k.cluster.n > 1) {
      if (paired == nullptr) paired = &k;
    } else if (k.swap_ab) {
      swapped.push_back(&k);
    } else if (unswapped == nullptr || cluster_columns(k) > cluster_columns(*unswapped)) {
      unswapped = &k;
    }
  }
  if (warp_mma != nullptr && warp_mma_serves(op, shape, a, sm_count)) {
    launches->push_back(GroupedLaunch::alone(KernelChoice{*warp_mma}));
    return Status::success();
  }
  std::stable_sort(swapped.begin(), swapped.end(),
                   [](const KernelKey* x, const KernelKey* y) { return x->tile.n < y->tile.n; });
  if (swapped.empty() && unswapped == nullptr) {
    if (paired != nullptr || warp_mma != nullptr) {
      launches->push_back(GroupedLaunch::alone(paired != nullptr ? rows_first(*paired) : KernelChoice{*warp_mma}));
      return Status::success();
    }
    return Status::not_supported(std::string(op_name) + ": no compiled sm90 grouped kernel serves " + to_string(a) +
                                 " in this build");
  }
  // No expert past 64 rows (or no unswapped kernel): the few-rows kernel alone, over every expert.
  if (!swapped.empty() && (unswapped == nullptr || expert_rows_max <= kSwappedRowsMax)) {
    launches->push_back(GroupedLaunch::alone(rows_first(*swapped.front())));
    return Status::success();
  }
  std::vector<const KernelKey*> kernels;  // in tier order
  GroupTiers tiers;
  auto add = [&](const KernelKey* k, std::int32_t tile_rows, float row_cost, float min_last_fill = 0.0f) {
    tiers.tile_rows[kernels.size()] = tile_rows;
    tiers.row_cost[kernels.size()] = row_cost;
    tiers.min_last_fill[kernels.size()] = min_last_fill;
    tiers.swap_ab[kernels.size()] = k->swap_ab;
    kernels.push_back(k);
  };
  if (!swapped.empty()) {
    add(swapped.front(), swapped.front()->tile.n, 1.0f);
    tiers.few_rows_max = kSwappedRowsMax;
  }
  add(unswapped, unswapped->tile.m, 1.0f);
  std::int32_t held = unswapped->tile.m;  // the most rows the tiers so far hold in one tile
  for (std::size_t i = 1; i < swapped.size() && kernels.size() < GroupTiers::kMax; ++i) {
    const KernelKey* k = swapped[i];
    if (k->tile.n <= held) continue;
    if (expert_rows_max > held) add(k, k->tile.n, kWideRowCost);
    held = k->tile.n;
  }
  const std::int64_t row_bytes = std::max<std::int64_t>(shape.K, 1) * static_cast<std::int64_t>(dtype_bytes(a));
  const bool paired_fits = expert_rows_max <= kPairedMaxExpertActivationBytes / row_bytes;
  if (paired != nullptr && paired_fits && kernels.size() < GroupTiers::kMax && expert_rows_max > held) {
    add(paired, paired->tile.n * paired->cluster.n, kPairedRowCost, kPairedMinLastFill);
  }
  tiers.count = static_cast<int>(kernels.size());
  if (op == Op::kGemm && !has_hbm3(caps)) tiers.model = launch_model(kernels, tiers);
  for (int t = 0; t < tiers.count; ++t) launches->push_back({rows_first(*kernels[t]), tiers, t});
  return Status::success();
}

}  // namespace

Status choose(const GroupedGemmArgs& args, const DeviceCaps& caps, const std::vector<KernelKey>& candidates,
              std::vector<GroupedLaunch>* launches) {
  const GemmArgs& g = args.gemm;
  const GroupedShape shape{g.M, args.experts, g.N, g.K, expert_rows_bound(g.M, args.max_expert_rows)};
  return choose_grouped("grouped_gemm", Op::kGemm, g.a_dtype, g.b_dtype, g.d_dtype, shape, caps, candidates,
                        launches);
}

Status choose(const GroupedGatedMlpArgs& args, const DeviceCaps& caps, const std::vector<KernelKey>& candidates,
              std::vector<GroupedLaunch>* launches) {
  const GatedMlpArgs& g = args.gated;
  const GroupedShape shape{g.M, args.experts, 2 * g.w.N, g.w.K, expert_rows_bound(g.M, args.max_expert_rows)};
  return choose_grouped("grouped_gated_mlp", Op::kGatedMlp, g.x_dtype, g.w.dtype, g.out_dtype, shape, caps,
                        candidates, launches);
}

}  // namespace epifuse::detail::sm90

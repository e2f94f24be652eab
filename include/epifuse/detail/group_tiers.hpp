// How a grouped call's launches share the experts by row count, known on the device only: the
// rule is the host's (src/dispatch/sm90/grouped_heuristics.cpp says why); the call's one setup
// kernel applies it to every expert and fills each launch's arrays with the experts of its tier.
#pragma once

#include <cmath>
#include <cstdint>

#if defined(__CUDACC__)
#define EPIFUSE_HOST_DEVICE __host__ __device__
#else
#define EPIFUSE_HOST_DEVICE
#endif

namespace epifuse::detail {

inline constexpr int kMaxGroupTiers = 5;

// The experts the setup kernel gives one launch: their token tiles (each expert's rows over the
// launch's tile rows, rounded up), how many experts, and their rows. A plain aggregate, filled
// whole from the setup kernel's sums (grouped_setup.cuh).
struct TierLoad {
  std::int64_t token_tiles, experts, rows;
};

// A launch's modeled time, where a call may leave its tier rule for one launch over every expert
// (grouped_heuristics.cpp says where and why): the launch's tiles in whole waves over the SMs, each
// tile its multiply-adds at one SM's rate plus a fixed cost, or its bytes (each expert's weight
// once, its rows of x and out) at the read bandwidth, whichever is longer, plus a cost per launch.
struct LaunchModel {
  bool on = false;
  std::int32_t weight_tile_rows[kMaxGroupTiers] = {1, 1, 1, 1, 1};  // per tier: the weight's rows one tile covers
  float macs_per_us[kMaxGroupTiers] = {1, 1, 1, 1, 1};              // per tier: one SM's rate on its tiles
  float tile_us[kMaxGroupTiers] = {0, 0, 0, 0, 0};                  // per tier: each tile's fixed cost
  float bytes_per_us = 1;
  float launch_us = 0;
  // The modeled time one launch must save against the rule's launches, as a share of theirs.
  float min_saving = 0;
};

struct GroupTiers {
  static constexpr int kMax = kMaxGroupTiers;
  int count = 1;
  // Tier 0 takes every expert of at most this many rows (the few-rows kernel); 0: no such tier.
  std::int32_t few_rows_max = 0;
  // Each other tier: the rows one tile covers, the relative cost of a padded row, and the least
  // share of its last tile an expert must fill to take the tier (0: any).
  std::int32_t tile_rows[kMax] = {1, 1, 1, 1, 1};
  float row_cost[kMax] = {1, 1, 1, 1, 1};
  float min_last_fill[kMax] = {0, 0, 0, 0, 0};
  // Whether tier t's kernel is swapped (the weight is its GEMM's A): the order of its arrays.
  bool swap_ab[kMax] = {false, false, false, false, false};
  LaunchModel model;

  // The tier of an expert of `rows` rows: tier 0 when there is one tier or the few-rows tier
  // holds it, otherwise, among the tiers whose last tile it fills enough, the one whose tiles pad
  // the rows least, by cost (the first on a tie; the first padded tier takes any expert).
  EPIFUSE_HOST_DEVICE int tier_of(std::int32_t rows) const {
    if (count <= 1 || (few_rows_max > 0 && rows <= few_rows_max)) return 0;
    int best = few_rows_max > 0 ? 1 : 0;
    float best_cost = padded_cost(best, rows);
    for (int t = best + 1; t < count; ++t) {
      if (!fills_last_tile(t, rows)) continue;
      const float cost = padded_cost(t, rows);
      if (cost < best_cost) {
        best = t;
        best_cost = cost;
      }
    }
    return best;
  }

  EPIFUSE_HOST_DEVICE float padded_cost(int tier, std::int32_t rows) const {
    const std::int32_t tiles = (rows + tile_rows[tier] - 1) / tile_rows[tier];
    return static_cast<float>(tiles) * static_cast<float>(tile_rows[tier]) * row_cost[tier];
  }

  EPIFUSE_HOST_DEVICE std::int64_t token_tiles(int tier, std::int64_t rows) const {
    return (rows + tile_rows[tier] - 1) / tile_rows[tier];
  }

  // The modeled µs of tier `tier`'s launch over `load` (0 without experts), for experts whose
  // weights have `weight_rows` rows of K elements of `element_bytes` each.
  EPIFUSE_HOST_DEVICE float modeled_us(int tier, const TierLoad& load, std::int64_t weight_rows, std::int64_t K,
                                       int element_bytes, int sm_count) const {
    if (load.experts == 0) return 0.0f;
    // In float: the setup kernel's one thread runs this, where 64-bit divisions are slow.
    const float weight_tile_rows = static_cast<float>(model.weight_tile_rows[tier]);
    const float weight_tiles = std::ceil(static_cast<float>(weight_rows) / weight_tile_rows);
    const float waves = std::ceil(static_cast<float>(load.token_tiles) * weight_tiles / static_cast<float>(sm_count));
    const float tile_macs = static_cast<float>(tile_rows[tier]) * weight_tile_rows * static_cast<float>(K);
    const float compute_us = waves * (tile_macs / model.macs_per_us[tier] + model.tile_us[tier]);
    // Each expert's weight, its rows of x (K wide) and of out (weight_rows wide).
    const float elements = static_cast<float>(load.experts) * static_cast<float>(weight_rows) * static_cast<float>(K) +
                           static_cast<float>(load.rows) * static_cast<float>(K + weight_rows);
    const float read_us = static_cast<float>(element_bytes) * elements / model.bytes_per_us;
    return (compute_us > read_us ? compute_us : read_us) + model.launch_us;
  }

  // With the model on, the tier whose one launch over every expert (`all_on[t]`: every expert's
  // load on tier t) the model times at least min_saving below the rule's launches (`by_rule`),
  // the fastest such; -1 (keep the rule) otherwise. The few-rows tier is never one.
  EPIFUSE_HOST_DEVICE int one_launch_tier(const TierLoad* by_rule, const TierLoad* all_on, std::int64_t weight_rows,
                                          std::int64_t K, int element_bytes, int sm_count) const {
    if (!model.on || count <= 1) return -1;
    float rule_us = 0.0f;
    for (int t = 0; t < count; ++t) rule_us += modeled_us(t, by_rule[t], weight_rows, K, element_bytes, sm_count);
    int best = -1;
    float best_us = (1.0f - model.min_saving) * rule_us;
    for (int t = few_rows_max > 0 ? 1 : 0; t < count; ++t) {
      const float us = modeled_us(t, all_on[t], weight_rows, K, element_bytes, sm_count);
      if (us < best_us) {
        best = t;
        best_us = us;
      }
    }
    return best;
  }

  // Whether an expert of `rows` rows (at least 1) fills at least min_last_fill of tier `tier`'s
  // last tile (a product, not a quotient: with the float division the setup kernel spilled).
  EPIFUSE_HOST_DEVICE bool fills_last_tile(int tier, std::int32_t rows) const {
    const std::int32_t in_last = (rows - 1) % tile_rows[tier] + 1;
    return static_cast<float>(in_last) >= min_last_fill[tier] * static_cast<float>(tile_rows[tier]);
  }
};

}  // namespace epifuse::detail

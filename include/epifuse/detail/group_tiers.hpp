// How a grouped call's launches share the experts by row count, known on the device only: the
// rule is the host's (src/dispatch/sm90/grouped_heuristics.cpp says why); the call's one setup
// kernel applies it to every expert and fills each launch's arrays with the experts of its tier.
#pragma once

#include <cstdint>

#if defined(__CUDACC__)
#define EPIFUSE_HOST_DEVICE __host__ __device__
#else
#define EPIFUSE_HOST_DEVICE
#endif

namespace epifuse::detail {

struct GroupTiers {
  static constexpr int kMax = 5;
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

  // Whether an expert of `rows` rows (at least 1) fills at least min_last_fill of tier `tier`'s
  // last tile (a product, not a quotient: with the float division the setup kernel spilled).
  EPIFUSE_HOST_DEVICE bool fills_last_tile(int tier, std::int32_t rows) const {
    const std::int32_t in_last = (rows - 1) % tile_rows[tier] + 1;
    return static_cast<float>(in_last) >= min_last_fill[tier] * static_cast<float>(tile_rows[tier]);
  }
};

}  // namespace epifuse::detail

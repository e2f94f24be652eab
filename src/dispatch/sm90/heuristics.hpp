// The sm90 kernel for a call among `candidates` (keys of any op and architecture: only sm90 keys
// of the call's op qualify). kNotSupported when none serves the call (a build filtered to others).
#pragma once

#include <cstdint>
#include <vector>

#include "dispatch/device_caps.hpp"
#include "dispatch/select.hpp"
#include "epifuse/gated_mlp.hpp"
#include "epifuse/gemm.hpp"
#include "epifuse/grouped_gated_mlp.hpp"
#include "epifuse/grouped_gemm.hpp"
#include "epifuse/kernel_key.hpp"

namespace epifuse::detail::sm90 {

Status choose(const GemmArgs& args, const DeviceCaps& caps, const std::vector<KernelKey>& candidates,
              KernelChoice* choice);
Status choose(const GatedMlpArgs& args, const DeviceCaps& caps, const std::vector<KernelKey>& candidates,
              KernelChoice* choice);
Status choose(const GroupedGemmArgs& args, const DeviceCaps& caps, const std::vector<KernelKey>& candidates,
              std::vector<GroupedLaunch>* launches);
Status choose(const GroupedGatedMlpArgs& args, const DeviceCaps& caps, const std::vector<KernelKey>& candidates,
              std::vector<GroupedLaunch>* launches);

// Whether the gated MLP runs cuBLASLt + act·mul rather than a fused kernel (no kernel forced).
bool delegates(const GatedMlpArgs& args, const DeviceCaps& caps, const std::vector<KernelKey>& candidates);
// Fused kernels besides choose()'s that a gated call's first launch times (no kernel forced).
std::vector<KernelChoice> timed_alternatives(const GatedMlpArgs& args, const DeviceCaps& caps,
                                             const std::vector<KernelKey>& candidates);
// Whether a GEMM cuBLASLt expresses runs cuBLASLt rather than one of `candidates`.
bool delegates(const GemmArgs& args, const DeviceCaps& caps, const std::vector<KernelKey>& candidates);

// K-loop shares of the warp-mma kernels at up to 8 tokens on `rows` weight rows (the GEMM's N, the
// gated MLP's 2N packed rows); the measurements are in gemm_heuristics.cpp.
int decode_splits(std::int64_t rows, std::int64_t K, int sm_count);

// Whether a bias + activation GEMM cuBLASLt cannot fuse runs cuBLASLt's product + epifuse's bias +
// activation kernel rather than one of epifuse's own kernels.
bool delegates_bias_act(const GemmArgs& args, const DeviceCaps& caps);

// DRAM that reads under 4 TB/s: an H100's HBM3 (3.35 TB/s), not an H200's HBM3e (4.8). Rules
// measured on one kind keep to it; an unknown bandwidth (0) is neither.
constexpr double kHbm3GbpsBelow = 4000;
inline bool has_hbm3(const DeviceCaps& caps) { return caps.dram_gbps > 0 && caps.dram_gbps < kHbm3GbpsBelow; }

// A kernel configuration apart from types and epilogue: what the shape-class rules choose.
struct Configuration {
  Schedule schedule;
  TileShape tile;
  ClusterShape cluster;
  bool swap_ab;
  Decomposition decomposition = Decomposition::kDataParallel;
};

// Configurations the GEMM's and the gated MLP's rules both name: the swapped 128x32 tile (the
// weight on wgmma's 128-row side, up to 32 tokens) and the warp-mma decode kernel's singles CTAs.
constexpr Configuration kSwapped32 = {Schedule::kCooperative, {128, 32, 128}, {1, 1}, true};
constexpr Configuration kWarpMmaSingles = {Schedule::kWarpMma, {16, 8, 64}, {1, 1}, true};

// ceil(a / b) for positive b: tiles over a extent.
inline std::int64_t ceil_div(std::int64_t a, std::int64_t b) { return (a + b - 1) / b; }

// An sm90 key with configuration `c`.
bool has_configuration(const KernelKey& key, const Configuration& c);

// Configurations `a` and `b` alike in every field.
bool same_configuration(const Configuration& a, const Configuration& b);

}  // namespace epifuse::detail::sm90

// Dispatch: which compiled kernel runs a call on the device it runs on. Entry points never name
// an architecture: select() maps the device's capabilities to the architecture whose kernels run
// there and asks that architecture's heuristics (dispatch/sm90/heuristics.hpp). A device with no
// compiled kernels is a dispatch result: kNotSupported, with a message that says so.
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

#include "dispatch/device_caps.hpp"
#include "epifuse/detail/launch_plan.hpp"
#include "epifuse/gated_mlp.hpp"
#include "epifuse/gemm.hpp"
#include "epifuse/grouped_gated_mlp.hpp"
#include "epifuse/grouped_gemm.hpp"
#include "epifuse/kernel_key.hpp"

namespace epifuse::detail {

// The architecture whose kernels run on the device, if epifuse has kernels for one.
std::optional<Arch> kernel_arch(const DeviceCaps& caps);

// For validated args of a call that launches a kernel. `candidates`: the kernels to choose
// among (the compiled ones; the whole table in the CPU tests). A forced args.kernel is checked
// against the candidates, the device and the call.
Status select(const GemmArgs& args, const DeviceCaps& caps, const std::vector<KernelKey>& candidates,
              KernelChoice* choice);
Status select(const GatedMlpArgs& args, const DeviceCaps& caps, const std::vector<KernelKey>& candidates,
              KernelChoice* choice);
// A grouped call runs one launch per kernel, each over the experts its tier gets by row count (the
// row counts are on the device: the call's setup kernel, enqueued by the launch of tier 0, gives
// each launch the experts of its tier and the others none).
struct GroupedLaunch {
  KernelChoice choice;
  GroupTiers tiers;  // of the call: one tier (every expert) unless dispatch splits them
  int tier = 0;      // this launch's

  // The one launch of a call that runs every expert on `choice`.
  static GroupedLaunch alone(const KernelChoice& choice) {
    GroupedLaunch launch;
    launch.choice = choice;
    launch.tiers.swap_ab[0] = choice.key.swap_ab;
    return launch;
  }
};
Status select(const GroupedGemmArgs& args, const DeviceCaps& caps, const std::vector<KernelKey>& candidates,
              std::vector<GroupedLaunch>* launches);
Status select(const GroupedGatedMlpArgs& args, const DeviceCaps& caps, const std::vector<KernelKey>& candidates,
              std::vector<GroupedLaunch>* launches);

// For validated gated args: whether the call runs cuBLASLt + epifuse's act·mul kernel on the
// device rather than one of `candidates` (never when a kernel is forced).
bool gated_delegation_pays(const GatedMlpArgs& args, const DeviceCaps& caps, const std::vector<KernelKey>& candidates);

// For validated gated args: the fused kernels of `candidates` besides select()'s that the call's
// first launch times where the rules cannot tell which tiling runs fastest (api/gated_path.hpp);
// none where a kernel is forced.
std::vector<KernelChoice> gated_timed_alternatives(const GatedMlpArgs& args, const DeviceCaps& caps,
                                                   const std::vector<KernelKey>& candidates);

// For validated GEMM args cuBLASLt expresses: whether cuBLASLt runs the call rather than one of
// `candidates` (epifuse's own kernels).
bool gemm_delegation_pays(const GemmArgs& args, const DeviceCaps& caps, const std::vector<KernelKey>& candidates);

// For validated GEMM args the bias + activation delegation serves (bias_act_delegable): whether
// cuBLASLt's product + epifuse's bias + activation kernel run the call rather than epifuse's own
// kernels (no kernel forced).
bool gemm_bias_act_delegation_pays(const GemmArgs& args, const DeviceCaps& caps);

// The launch knobs of `choice` on the device.
LaunchPlan launch_plan(const DeviceCaps& caps, const KernelChoice& choice);
// For a call: the GEMM's is the choice's; the gated MLP's also pads x's rows to a whole number of
// token tiles (and clusters along the tokens) when M is not one.
LaunchPlan launch_plan(const GemmArgs& args, const DeviceCaps& caps, const KernelChoice& choice);
LaunchPlan launch_plan(const GatedMlpArgs& args, const DeviceCaps& caps, const KernelChoice& choice);
LaunchPlan launch_plan(const GroupedLaunch& launch, const DeviceCaps& caps);

}  // namespace epifuse::detail

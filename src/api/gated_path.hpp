// Which way a gated call runs where it can run more than one: epifuse's fused kernel or the
// delegated cuBLASLt product + act·mul (delegate/cublaslt_gated.hpp), and where dispatch names
// them, other fused tilings (gated_timed_alternatives in dispatch/select.hpp). Dispatch's rules
// name one. With tuning on (delegated_tuning() in epifuse/tuning.hpp), the first eager launch of a
// call's key times every way on the call's own operands, the rules' first (candidate_timing.hpp:
// a tie within 1 % keeps it), and the key keeps the fastest. The rules were fitted on catalogue
// MLPs and sweeps; on random shapes the fused kernel they chose ran 0.68-0.95x cuBLASLt + act·mul
// at 13 of 200 draws, and the delegated path they chose lost to the fused kernel at others
// (bench/results/grid/random-ebaf4aa/).
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <optional>
#include <vector>

#include <cuda_runtime_api.h>

#include "delegate/cublaslt_gated.hpp"
#include "dispatch/device_caps.hpp"
#include "epifuse/gated_mlp.hpp"
#include "epifuse/status.hpp"

namespace epifuse::detail {

// Where the rule keeps the fused kernel, a workspace query makes room for the fp32 product [M, 2N]
// (so that the first launch can time the delegated path too) only where it takes at most 256 MiB
// and no more bytes than x (K >= 4N: narrow weights, long K), or than an eighth of the weight
// (at most K/16 tokens of 16-bit operands) on more than 16 tokens and a weight larger than L2:
//   - at decode the two paths timed within a few % of each other either way (1x14336x4096: 9 of
//     15 first launches, in three processes, kept the delegated path, whose host cost per call
//     was about twice the fused kernel's), and the grid's decode points moved by at most 1.1 %;
//   - the timing reruns the call's own operands, so a weight that fits in L2 is read from it:
//     17x8512x320, 7x4928x1920 and 3x30016x384 timed the delegated path faster and ran it
//     1.04-1.05x slower with their weights from DRAM (bench/results/grid/random-5bb66c6/).
// A larger batch of an MLP's gate/up (N > K) thus asks for no more than before: the fused op's
// promise is that no [M, 2N] product is held, and a chunked MLP's peak memory counts on it
// (python/tests/test_mlp_gpu.py). A caller whose workspace holds the product anyway gets both
// paths timed at any shape.
constexpr std::size_t kTimedProductMaxBytes = std::size_t{256} << 20;
constexpr std::size_t kTimedProductWeightShare = 8;  // the product may take 1/8 of the weight's bytes
constexpr std::int64_t kTimedProductMinTokens = 17;  // the weight share starts past decode's 16 tokens

// A call's shape, types, operand alignment and whether the delegated path can run: what the
// timing's choice is kept for (for any workspace that admits those ways).
using GatedPathKey = std::array<std::int64_t, 17>;

// One way to run a gated call: the delegated path, or a fused kernel (the rules' pick, or `kernel`
// forced).
struct GatedRun {
  bool delegated = false;
  std::optional<KernelChoice> kernel;
};

struct GatedPaths {
  DelegatedGatedPlan delegated;            // found: the call can run the delegated path
  std::vector<KernelChoice> alternatives;  // fused kernels timed beside the rules' (tuning on)
  bool rule_delegates = false;             // dispatch's rule runs the delegated path
  bool remembered = false;                 // a first launch timed the ways for this key
  GatedRun remembered_run;
  GatedPathKey key{};

  // The way the call runs now: the key's timing (tuning on) or else the rule's, delegated only
  // where it can.
  GatedRun run() const;
  // Whether the call has more than one way to run.
  bool has_choice() const { return delegated.found() || !alternatives.empty(); }
};

// For validated args with M > 0 on caps' device, without a forced kernel or with one (never
// delegated), given `usable_bytes` of workspace from its first 256-byte boundary on; for a
// workspace query (`query`), the paths it makes room for.
GatedPaths gated_paths(const GatedMlpArgs& args, const DeviceCaps& caps, std::size_t usable_bytes, bool query = false);

// Whether a launch of `paths` on `stream` times its ways first: tuning on, more than one way, the
// key not timed yet, the stream not capturing.
bool times_gated_paths(const GatedPaths& paths, cudaStream_t stream);

// Times `run(way, stream)` for every way of `paths` on `stream` (the host waits) and remembers the
// fastest for paths->key (the rule's way where the timing fails), unless another thread timed the
// key first: then its way is kept, here too.
void time_gated_paths(GatedPaths* paths, const std::function<Status(const GatedRun&, cudaStream_t)>& run,
                      cudaStream_t stream);

}  // namespace epifuse::detail

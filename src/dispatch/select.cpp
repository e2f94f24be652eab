#include "dispatch/select.hpp"

#include <algorithm>
#include <string>

#include "dispatch/sm90/heuristics.hpp"
#include "epifuse/tuning.hpp"

namespace epifuse::detail {
namespace {

std::string device_label(const DeviceCaps& caps) {
  return "device " + std::to_string(caps.device) + " (" + caps.name + ", sm_" + std::to_string(caps.cc_major) +
         std::to_string(caps.cc_minor) + ")";
}

Status no_kernels_for(const char* op, const DeviceCaps& caps) {
  return Status::not_supported(std::string(op) + ": no epifuse kernel runs on " + device_label(caps) +
                               "; this build compiles kernels for sm_90a (Hopper: H100, H200)");
}

// What every forced kernel must be: compiled, of the call's op, for the device, with valid knobs.
Status check_forced(const char* op_name, Op op, Arch arch, const KernelChoice& forced,
                    const std::vector<KernelKey>& candidates) {
  const std::string named = std::string(op_name) + ": forced kernel '" + name(forced.key) + "' ";
  if (std::find(candidates.begin(), candidates.end(), forced.key) == candidates.end()) {
    return Status::invalid_argument(named + "is not compiled in this build; compiled_kernels() lists them");
  }
  if (forced.key.op != op) return Status::invalid_argument(named + "is a " + to_string(forced.key.op) + " kernel");
  if (forced.key.arch != arch) return Status::invalid_argument(named + "does not run on this device's architecture");
  if (forced.swizzle != 1 && forced.swizzle != 2 && forced.swizzle != 4 && forced.swizzle != 8) {
    return Status::invalid_argument(named + "with swizzle " + std::to_string(forced.swizzle) +
                                    ": the swizzle must be 1, 2, 4 or 8");
  }
  if (forced.splits < 1 || forced.splits > 32) {
    return Status::invalid_argument(named + "with splits " + std::to_string(forced.splits) + ": splits must be 1 to 32");
  }
  if (forced.key.schedule == Schedule::kWarpMma) {
    if (forced.splits != 1 && forced.splits != 2 && forced.splits != 4 && forced.splits != 8) {
      return Status::invalid_argument(named + "with splits " + std::to_string(forced.splits) +
                                      ": a warp-mma kernel's cluster shares the K loop among 1, 2, 4 or 8 CTAs");
    }
  } else if (forced.splits > 1 && forced.key.decomposition != Decomposition::kStreamK) {
    return Status::invalid_argument(named + "with splits " + std::to_string(forced.splits) +
                                    ": only stream-K and warp-mma kernels split the K loop");
  }
  const int stream_k = static_cast<int>(forced.stream_k);
  if (stream_k < 0 || stream_k > static_cast<int>(StreamKMode::kShareTail)) {
    return Status::invalid_argument(named + "with stream-K mode " + std::to_string(stream_k) + ", not a StreamKMode");
  }
  if (forced.stream_k != StreamKMode::kHeuristic &&
      (forced.key.decomposition != Decomposition::kStreamK || forced.splits != 1)) {
    return Status::invalid_argument(named + "with stream-K mode " + to_string(forced.stream_k) +
                                    ": only a stream-K kernel with splits 1 takes a stream-K mode");
  }
  const int raster = static_cast<int>(forced.raster);
  if (raster < 0 || raster > static_cast<int>(RasterOrder::kAlongN)) {
    return Status::invalid_argument(named + "with raster order " + std::to_string(raster) + ", not a RasterOrder");
  }
  return Status::success();
}

std::string types(DType a, DType b, DType d) {
  return std::string(to_string(a)) + " x " + to_string(b) + " -> " + to_string(d);
}

}  // namespace

std::optional<Arch> kernel_arch(const DeviceCaps& caps) {
  if (caps.cc_major == 9 && caps.cc_minor == 0) return Arch::kSm90;
  return std::nullopt;
}

Status select(const GemmArgs& args, const DeviceCaps& caps, const std::vector<KernelKey>& candidates,
              KernelChoice* choice) {
  const std::optional<Arch> arch = kernel_arch(caps);
  if (!arch) return no_kernels_for("gemm", caps);
  if (const std::optional<KernelChoice>& forced = args.kernel) {
    if (Status s = check_forced("gemm", Op::kGemm, *arch, *forced, candidates); !s.ok()) return s;
    const KernelKey& k = forced->key;
    const std::string named = "gemm: forced kernel '" + name(k) + "' ";
    if (k.grouping != Grouping::kNone) return Status::invalid_argument(named + "is grouped: grouped_gemm runs it");
    if (k.a != args.a_dtype || k.b != args.b_dtype || k.d != args.d_dtype) {
      return Status::invalid_argument(named + "computes " + types(k.a, k.b, k.d) + ", the call " +
                                      types(args.a_dtype, args.b_dtype, args.d_dtype));
    }
    if (args.epilogue.residual && !k.has_c) {
      return Status::invalid_argument(named + "is compiled without C; this epilogue has a residual");
    }
    if (k.epilogue < required_coverage(args.epilogue)) {
      return Status::invalid_argument(named + "serves " + to_string(k.epilogue) + " epilogues; this one needs " +
                                      to_string(required_coverage(args.epilogue)));
    }
    if (args.M > max_tokens(k)) {
      return Status::invalid_argument(named + "serves at most " + std::to_string(max_tokens(k)) +
                                      " tokens, the call has " + std::to_string(args.M));
    }
    *choice = *forced;
    return Status::success();
  }
  switch (*arch) {
    case Arch::kSm90: return sm90::choose(args, caps, candidates, choice);
  }
  return no_kernels_for("gemm", caps);
}

Status select(const GatedMlpArgs& args, const DeviceCaps& caps, const std::vector<KernelKey>& candidates,
              KernelChoice* choice) {
  const std::optional<Arch> arch = kernel_arch(caps);
  if (!arch) return no_kernels_for("gated_mlp", caps);
  if (const std::optional<KernelChoice>& forced = args.kernel) {
    if (Status s = check_forced("gated_mlp", Op::kGatedMlp, *arch, *forced, candidates); !s.ok()) return s;
    const KernelKey& k = forced->key;
    if (k.grouping != Grouping::kNone) {
      return Status::invalid_argument("gated_mlp: forced kernel '" + name(k) + "' is grouped: grouped_gated_mlp runs it");
    }
    if (k.a != args.x_dtype || k.b != args.w.dtype || k.d != args.out_dtype) {
      return Status::invalid_argument("gated_mlp: forced kernel '" + name(k) + "' computes " + types(k.a, k.b, k.d) +
                                      ", the call " + types(args.x_dtype, args.w.dtype, args.out_dtype));
    }
    if (args.M > max_tokens(k)) {
      return Status::invalid_argument("gated_mlp: forced kernel '" + name(k) + "' serves at most " +
                                      std::to_string(max_tokens(k)) + " tokens, the call has " + std::to_string(args.M));
    }
    *choice = *forced;
    return Status::success();
  }
  switch (*arch) {
    case Arch::kSm90: return sm90::choose(args, caps, candidates, choice);
  }
  return no_kernels_for("gated_mlp", caps);
}

Status select(const GroupedGemmArgs& args, const DeviceCaps& caps, const std::vector<KernelKey>& candidates,
              std::vector<GroupedLaunch>* launches) {
  launches->clear();
  const std::optional<Arch> arch = kernel_arch(caps);
  if (!arch) return no_kernels_for("grouped_gemm", caps);
  const GemmArgs& g = args.gemm;
  if (const std::optional<KernelChoice>& forced = g.kernel) {
    if (Status s = check_forced("grouped_gemm", Op::kGemm, *arch, *forced, candidates); !s.ok()) return s;
    const KernelKey& k = forced->key;
    const std::string named = "grouped_gemm: forced kernel '" + name(k) + "' ";
    if (k.grouping != Grouping::kGrouped) return Status::invalid_argument(named + "is not a grouped kernel");
    if (k.a != g.a_dtype || k.b != g.b_dtype || k.d != g.d_dtype) {
      return Status::invalid_argument(named + "computes " + types(k.a, k.b, k.d) + ", the call " +
                                      types(g.a_dtype, g.b_dtype, g.d_dtype));
    }
    launches->push_back(GroupedLaunch::alone(*forced));
    return Status::success();
  }
  switch (*arch) {
    case Arch::kSm90: return sm90::choose(args, caps, candidates, launches);
  }
  return no_kernels_for("grouped_gemm", caps);
}

Status select(const GroupedGatedMlpArgs& args, const DeviceCaps& caps, const std::vector<KernelKey>& candidates,
              std::vector<GroupedLaunch>* launches) {
  launches->clear();
  const std::optional<Arch> arch = kernel_arch(caps);
  if (!arch) return no_kernels_for("grouped_gated_mlp", caps);
  const GatedMlpArgs& g = args.gated;
  if (const std::optional<KernelChoice>& forced = g.kernel) {
    if (Status s = check_forced("grouped_gated_mlp", Op::kGatedMlp, *arch, *forced, candidates); !s.ok()) return s;
    const KernelKey& k = forced->key;
    const std::string named = "grouped_gated_mlp: forced kernel '" + name(k) + "' ";
    if (k.grouping != Grouping::kGrouped) return Status::invalid_argument(named + "is not a grouped kernel");
    if (k.a != g.x_dtype || k.b != g.w.dtype || k.d != g.out_dtype) {
      return Status::invalid_argument(named + "computes " + types(k.a, k.b, k.d) + ", the call " +
                                      types(g.x_dtype, g.w.dtype, g.out_dtype));
    }
    launches->push_back(GroupedLaunch::alone(*forced));
    return Status::success();
  }
  switch (*arch) {
    case Arch::kSm90: return sm90::choose(args, caps, candidates, launches);
  }
  return no_kernels_for("grouped_gated_mlp", caps);
}

bool gated_delegation_pays(const GatedMlpArgs& args, const DeviceCaps& caps, const std::vector<KernelKey>& candidates) {
  const std::optional<Arch> arch = kernel_arch(caps);
  if (!arch) return false;
  switch (*arch) {
    case Arch::kSm90: return sm90::delegates(args, caps, candidates);
  }
  return false;
}

std::vector<KernelChoice> gated_timed_alternatives(const GatedMlpArgs& args, const DeviceCaps& caps,
                                                   const std::vector<KernelKey>& candidates) {
  const std::optional<Arch> arch = kernel_arch(caps);
  if (!arch) return {};
  switch (*arch) {
    case Arch::kSm90: return sm90::timed_alternatives(args, caps, candidates);
  }
  return {};
}

bool gemm_delegation_pays(const GemmArgs& args, const DeviceCaps& caps, const std::vector<KernelKey>& candidates) {
  const std::optional<Arch> arch = kernel_arch(caps);
  if (!arch) return true;
  switch (*arch) {
    case Arch::kSm90: return sm90::delegates(args, caps, candidates);
  }
  return true;
}

bool gemm_bias_act_delegation_pays(const GemmArgs& args, const DeviceCaps& caps) {
  const std::optional<Arch> arch = kernel_arch(caps);
  if (!arch) return false;
  switch (*arch) {
    case Arch::kSm90: return sm90::delegates_bias_act(args, caps);
  }
  return false;
}

LaunchPlan launch_plan(const DeviceCaps& caps, const KernelChoice& choice) {
  LaunchPlan plan;
  plan.device = caps.device;
  plan.sm_count = caps.sm_count;
  plan.raster = choice.raster;
  plan.swizzle = choice.swizzle;
  plan.splits = choice.splits;
  plan.stream_k = choice.stream_k;
  return plan;
}

LaunchPlan launch_plan(const GemmArgs&, const DeviceCaps& caps, const KernelChoice& choice) {
  return launch_plan(caps, choice);
}

LaunchPlan launch_plan(const GroupedLaunch& launch, const DeviceCaps& caps) {
  LaunchPlan plan = launch_plan(caps, launch.choice);
  plan.group_tiers = launch.tiers;
  plan.group_tier = launch.tier;
  return plan;
}

// Padding x costs a copy kernel the GEMM waits for (7-8 µs more at 245-249 tokens on Llama-3 8B,
// H200). It pays where the last token tile is at least a quarter out of bounds and a large share
// of the work. Padded everywhere with the kernels of 0c746b8, 149-153 and 197-201 tokens ran faster
// at 17 of 18 points (by 1-14 %), 53-57, 101-105, 245-249, 373-377 and 594-598 tokens slower at 41
// of 45 (by up to 9 %; bench/results/grid/README.md). With today's token tiles (f5b1cc2, three
// catalogue MLPs, 26 token counts; bench/results/tuning/issue9/padding/), 257-1088 tokens ran
// 0.55-1.04x of cuBLASLt + act·mul in place and 0.77-1.04x padded (geometric mean 0.84 -> 0.94),
// 1089 tokens the same either way, 1537-2305 tokens up to 2 % slower padded.
// Those were weights of 67 MB and more. On small calls the copy costs more than it saves: H100,
// 3aceecc, 87 shapes of 65-1152 tokens, padded and in place in one binary, passes alternating
// (bench/results/tuning/issue9/padding-small-calls/): every padded call under 16 GFLOP ran faster
// in place (0.64-0.98x the time; the copy is one more launch and a pass over x, while the
// out-of-bounds boxes cost a short K loop little), and so did calls whose x outweighs half the
// weight (1069x320x14208: 0.72x, the copy moves 30 MB). Of the larger calls, in place took
// 1.06-1.28x the padded time at six (336x10688x3392, 404x2944x9472, 426x960x13248,
// 671x9152x1152, 718x15680x2624, 1107x14208x640) and 0.93-0.97x at three.
constexpr std::int64_t kPaddedTokensMin = 65, kPaddedTokensMax = 1152;
constexpr double kPaddedMinFlops = 20e9;

bool padding_pays(const GatedMlpArgs& args) {
  const double flops = 4.0 * static_cast<double>(args.M) * static_cast<double>(args.w.N) * static_cast<double>(args.w.K);
  return args.M >= kPaddedTokensMin && args.M <= kPaddedTokensMax && flops >= kPaddedMinFlops &&
         args.w.N >= 2 * args.M;
}

LaunchPlan launch_plan(const GatedMlpArgs& args, const DeviceCaps& caps, const KernelChoice& choice) {
  LaunchPlan plan = launch_plan(caps, choice);
  const KernelKey& k = choice.key;
  const std::int64_t tile = k.swap_ab ? k.tile.n : k.tile.m;
  const std::int64_t step = tile * (k.swap_ab ? k.cluster.n : k.cluster.m);
  const std::int64_t padded = (args.M + step - 1) / step * step;
  const std::int64_t out_of_bounds = padded - args.M;  // rows of the last tile (or cluster) past x's end
  if (padding_pays(args) && 4 * (out_of_bounds % tile) >= tile) {
    plan.padded_tokens = padded;
  }
  return plan;
}

}  // namespace epifuse::detail

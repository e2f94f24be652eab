// Kernel choice for the sm90 GEMM, by shape class (docs/heuristics.md has the measurements
// behind each rule):
//   col_sum / col_amax  -> the dtype pair's column-reduction kernel (a 128x128 tile keeps the
//                          per-column partial results in registers without spilling)
//   M <= 64             -> swapped 128x64 tile: the weight fills wgmma's 64-row side, the few
//                          tokens its N side; memory-bound, so every SM streams weight tiles
//   M <= 256            -> 128x256 cooperative, 1x2 cluster: the pair shares one A tile; a 2x1
//                          cluster would leave half of each cluster without rows
//   otherwise           -> 128x256 cooperative, 2x1 cluster (B tiles multicast to 2 CTAs)
// Within a configuration, the narrowest compiled epilogue that covers the call runs (cast only,
// then bias + activation, then the full tree: fewer nodes, less time per tile), and without a
// residual its variant compiled without C ("_noc"): no C staging in shared memory, and TMA stores
// overlap the next subtile's work.
#include "dispatch/sm90_heuristics.hpp"

#include <string>

namespace epifuse::detail {
namespace {

std::string dtype_prefix(const GemmArgs& args) {
  return std::string("sm90_") + to_string(args.input_dtype) + "_" + to_string(args.output_dtype) + "_";
}

const Sm90GemmKernelEntry* find_kernel(const std::string& name) {
  for (const Sm90GemmKernelEntry* k : sm90_gemm_kernels()) {
    if (k->info.name == name) return k;
  }
  return nullptr;
}

const char* coverage_suffix(EpilogueCoverage c) {
  switch (c) {
    case EpilogueCoverage::kCastOnly: return "_cast";
    case EpilogueCoverage::kBiasActivation: return "_biasact";
    case EpilogueCoverage::kFull: return "";
    case EpilogueCoverage::kFullWithColumnReductions: return "_colreduce";
  }
  return "";
}

// The shape class's configuration (name without dtype prefix and variant suffixes).
const char* configuration_for(const GemmArgs& args) {
  if (args.epilogue.has_column_reductions()) return "coop_128x128x64_c1x1";
  if (args.M <= 64) return "swap_coop_128x64x128_c1x1";
  if (args.M <= 256) return "coop_128x256x64_c1x2";
  return "coop_128x256x64_c2x1";
}

Status check_forced(const GemmArgs& args, const Sm90GemmKernelEntry* k) {
  if (k == nullptr) {
    return Status::invalid_argument(std::string("gemm: kernel '") + args.kernel +
                                    "' is not compiled; gemm_kernels() lists the names");
  }
  if (k->info.input_dtype != args.input_dtype || k->info.output_dtype != args.output_dtype) {
    return Status::invalid_argument(std::string("gemm: kernel '") + args.kernel + "' is compiled for " +
                                    to_string(k->info.input_dtype) + "->" + to_string(k->info.output_dtype));
  }
  if (args.epilogue.residual && !k->info.residual) {
    return Status::invalid_argument(std::string("gemm: kernel '") + args.kernel +
                                    "' is compiled without C; this epilogue has a residual");
  }
  if (k->info.coverage < required_coverage(args.epilogue)) {
    return Status::invalid_argument(std::string("gemm: kernel '") + args.kernel + "' serves " +
                                    to_string(k->info.coverage) + " epilogues; this one needs " +
                                    to_string(required_coverage(args.epilogue)));
  }
  return Status::success();
}

}  // namespace

Status choose_sm90_gemm(const GemmArgs& args, const sm90::LaunchConfig& device_defaults, Sm90Choice* choice) {
  choice->config = device_defaults;
  if (args.kernel != nullptr) {
    const Sm90GemmKernelEntry* k = find_kernel(args.kernel);
    if (Status s = check_forced(args, k); !s.ok()) return s;
    choice->kernel = k;
    return Status::success();
  }

  const EpilogueCoverage required = required_coverage(args.epilogue);
  const EpilogueCoverage widest =
      required == EpilogueCoverage::kFullWithColumnReductions ? required : EpilogueCoverage::kFull;
  // Dtype pairs with fewer kernels run their large-M configuration beyond the small-M class.
  const std::string configurations[] = {dtype_prefix(args) + configuration_for(args),
                                         dtype_prefix(args) + "coop_128x256x64_c1x2"};
  const Sm90GemmKernelEntry* k = nullptr;
  for (const std::string& configuration : configurations) {
    for (int c = static_cast<int>(required); k == nullptr && c <= static_cast<int>(widest); ++c) {
      const std::string name = configuration + coverage_suffix(static_cast<EpilogueCoverage>(c));
      if (!args.epilogue.residual) k = find_kernel(name + "_noc");
      if (k == nullptr) k = find_kernel(name);
    }
    if (k != nullptr) break;
  }
  if (k == nullptr) {
    return Status::internal("gemm: no compiled kernel for " + configurations[0] + " (kernel list and heuristic disagree)");
  }
  choice->kernel = k;
  return Status::success();
}

}  // namespace epifuse::detail

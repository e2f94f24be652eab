#include "planner/dispatched_kernel.hpp"

#include "dispatch/kernel_table.hpp"
#include "dispatch/select.hpp"
#include "epifuse/kernel_key.hpp"
#include "epifuse/tuning.hpp"

namespace epifuse::plan {
namespace {

detail::DeviceCaps device_caps(const Gpu& gpu) {
  detail::DeviceCaps caps;
  const bool hopper = gpu.name.find("H100") != std::string::npos || gpu.name.find("H200") != std::string::npos;
  const bool ampere = gpu.name.find("A100") != std::string::npos;
  caps.cc_major = hopper ? 9 : ampere ? 8 : 0;
  caps.sm_count = gpu.sm_count;
  caps.name = gpu.name;
  caps.dram_gbps = gpu.bandwidth_gbps;
  return caps;
}

}  // namespace

std::string dispatched_kernel(const GemmShape& shape, bool gated, Precision precision, const Gpu& gpu) {
  if (precision == Precision::kFP8) return "none: no fp8 kernels in this build";
  const DType dtype = precision == Precision::kFP16 ? DType::kFP16 : DType::kBF16;
  // gated_mlp's validation: the width (N / 2) and K multiples of 8.
  if (gated && (shape.N % 16 != 0 || shape.K % 8 != 0)) {
    return "none: a gated MLP needs its width (N / 2) and K to be multiples of 8";
  }
  const detail::DeviceCaps caps = device_caps(gpu);
  if (caps.cc_major == 0) return "none: not a GPU epifuse knows (name without H100, H200 or A100)";
  if (caps.sm_count <= 0) return "none: the GPU's SM count is unknown";
  // Off Hopper no delegation is tried: the call fails as dispatch reports it.
  const bool hopper = detail::kernel_arch(caps).has_value();
  KernelChoice choice;
  Status status;
  if (gated) {
    GatedMlpArgs args;
    args.M = shape.M;
    args.N = args.w.N = shape.N / 2;
    args.w.K = args.w.ld = args.ldx = shape.K;
    args.w.dtype = args.x_dtype = args.out_dtype = dtype;
    if (hopper && detail::gated_delegation_pays(args, caps, detail::kernel_table())) return kDelegatedKernelName;
    status = detail::select(args, caps, detail::kernel_table(), &choice);
  } else {
    GemmArgs args;
    args.M = shape.M;
    args.N = shape.N;
    args.K = shape.K;
    args.a_dtype = args.b_dtype = args.d_dtype = dtype;
    if (hopper && detail::gemm_delegation_pays(args, caps, detail::kernel_table())) return kDelegatedKernelName;
    status = detail::select(args, caps, detail::kernel_table(), &choice);
  }
  return status.ok() ? to_string(choice) : "none: " + status.message();
}

}  // namespace epifuse::plan

// What a generated sm90 kernel source compiles: the family of its row's op, packaged as the
// registry entry `const detail::KernelEntry& epifuse::kernels::entry_<id>()`.
#pragma once

#include "kernels/kernel_entry.hpp"
#include "kernels/sm90/gated_mlp_kernel.cuh"
#include "kernels/sm90/gemm_kernel.cuh"
#include "kernels/sm90/warp_mma_gated_kernel.cuh"

namespace epifuse::kernels::sm90 {

template <class Row>
detail::KernelEntry make_entry() {
  if constexpr (Row::kKey.op == Op::kGemm) {
    return {Row::kKey, detail::Launcher<GemmArgs>{&GemmKernel<Row>::run, &GemmKernel<Row>::workspace_bytes}};
  } else if constexpr (Row::kKey.schedule == Schedule::kWarpMma) {
    static_assert(Row::kKey.op == Op::kGatedMlp, "warp_mma serves the gated MLP");
    return {Row::kKey, detail::Launcher<GatedMlpArgs>{&WarpMmaGatedKernel<Row>::run,
                                                      &WarpMmaGatedKernel<Row>::workspace_bytes}};
  } else {
    static_assert(Row::kKey.op == Op::kGatedMlp, "an op without an sm90 family");
    return {Row::kKey,
            detail::Launcher<GatedMlpArgs>{&GatedMlpKernel<Row>::run, &GatedMlpKernel<Row>::workspace_bytes}};
  }
}

}  // namespace epifuse::kernels::sm90

#define EPIFUSE_SM90_KERNEL(id, Row)                                                        \
  namespace epifuse::kernels {                                                              \
  const detail::KernelEntry& entry_##id() {                                                 \
    static const detail::KernelEntry entry = sm90::make_entry<Row>();                       \
    return entry;                                                                           \
  }                                                                                         \
  }

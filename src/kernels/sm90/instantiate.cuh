// What a generated sm90 kernel source compiles: the family of its row's op and schedule, packaged
// as the registry entry `const detail::KernelEntry& epifuse::kernels::entry_<id>()`. The generated
// source includes its family's header before this one (cmake/kernel_table.cmake), so that an edit
// to one family recompiles that family's rows only.
#pragma once

#include "kernels/kernel_entry.hpp"

namespace epifuse::kernels::sm90 {

template <class Row>
struct GemmKernel;  // gemm_kernel.cuh
template <class Row>
struct GatedMlpKernel;  // gated_mlp_kernel.cuh
template <class Row>
struct WarpMmaGatedKernel;  // warp_mma_gated_kernel.cuh
template <class Row>
struct WarpMmaGemmKernel;  // warp_mma_gemm_kernel.cuh
template <class Row>
struct WarpMmaGroupedGatedKernel;  // warp_mma_grouped_kernel.cuh
template <class Row>
struct WarpMmaGroupedGemmKernel;  // warp_mma_grouped_kernel.cuh
template <class Row>
struct GroupedGemmKernel;  // grouped_gemm_kernel.cuh
template <class Row>
struct GroupedGatedMlpKernel;  // grouped_gated_mlp_kernel.cuh

template <class Row>
detail::KernelEntry make_entry() {
  if constexpr (Row::kKey.grouping == Grouping::kGrouped && Row::kKey.schedule == Schedule::kWarpMma &&
                Row::kKey.op == Op::kGemm) {
    return {Row::kKey, detail::Launcher<GroupedGemmArgs>{&WarpMmaGroupedGemmKernel<Row>::run,
                                                         &WarpMmaGroupedGemmKernel<Row>::workspace_bytes}};
  } else if constexpr (Row::kKey.grouping == Grouping::kGrouped && Row::kKey.schedule == Schedule::kWarpMma) {
    return {Row::kKey, detail::Launcher<GroupedGatedMlpArgs>{&WarpMmaGroupedGatedKernel<Row>::run,
                                                             &WarpMmaGroupedGatedKernel<Row>::workspace_bytes}};
  } else if constexpr (Row::kKey.op == Op::kGemm && Row::kKey.grouping == Grouping::kGrouped) {
    return {Row::kKey,
            detail::Launcher<GroupedGemmArgs>{&GroupedGemmKernel<Row>::run, &GroupedGemmKernel<Row>::workspace_bytes}};
  } else if constexpr (Row::kKey.op == Op::kGemm && Row::kKey.schedule == Schedule::kWarpMma) {
    return {Row::kKey,
            detail::Launcher<GemmArgs>{&WarpMmaGemmKernel<Row>::run, &WarpMmaGemmKernel<Row>::workspace_bytes}};
  } else if constexpr (Row::kKey.op == Op::kGemm) {
    return {Row::kKey, detail::Launcher<GemmArgs>{&GemmKernel<Row>::run, &GemmKernel<Row>::workspace_bytes}};
  } else if constexpr (Row::kKey.grouping == Grouping::kGrouped) {
    return {Row::kKey, detail::Launcher<GroupedGatedMlpArgs>{&GroupedGatedMlpKernel<Row>::run,
                                                             &GroupedGatedMlpKernel<Row>::workspace_bytes}};
  } else if constexpr (Row::kKey.schedule == Schedule::kWarpMma) {
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

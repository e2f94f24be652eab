#include "bench/static_epilogue_gemm.hpp"

#include <cutlass/epilogue/fusion/sm90_visitor_compute_tma_warpspecialized.hpp>

#include "epifuse/sm90/gemm_kernel.cuh"

namespace epifuse::bench {
namespace {

using Config = sm90::KernelConfig<cutlass::bfloat16_t, cutlass::bfloat16_t, cute::Shape<cute::_128, cute::_256, cute::_64>,
                                  cute::Shape<cute::_2, cute::_1, cute::_1>, sm90::Cooperative, false, void>;

using CastOnly = cutlass::epilogue::fusion::Sm90EVT<
    cutlass::epilogue::fusion::Sm90Compute<cutlass::epilogue::thread::Identity, cutlass::bfloat16_t, float,
                                           cutlass::FloatRoundStyle::round_to_nearest>,
    cutlass::epilogue::fusion::Sm90AccFetch>;

}  // namespace

const char* static_gemm_twin_kernel() { return "sm90_bf16_bf16_coop_128x256x64_c2x1_noc"; }

Status static_gemm(const GemmArgs& args, cudaStream_t stream) {
  return sm90::gemm_custom<Config, CastOnly>(args, {}, stream);
}

}  // namespace epifuse::bench

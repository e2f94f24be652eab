// The configuration shared by the static-epilogue baselines (see static_epilogue_gemm.hpp).
#pragma once

#include <cutlass/epilogue/fusion/sm90_visitor_compute_tma_warpspecialized.hpp>

#include "epifuse/sm90/gemm_kernel.cuh"

namespace epifuse::bench {

template <class ElementC>
using StaticConfig = sm90::KernelConfig<cutlass::bfloat16_t, cutlass::bfloat16_t,
                                        cute::Shape<cute::_128, cute::_256, cute::_64>,
                                        cute::Shape<cute::_2, cute::_1, cute::_1>, sm90::Cooperative, false, ElementC>;

using CastOnly = cutlass::epilogue::fusion::Sm90EVT<
    cutlass::epilogue::fusion::Sm90Compute<cutlass::epilogue::thread::Identity, cutlass::bfloat16_t, float,
                                           cutlass::FloatRoundStyle::round_to_nearest>,
    cutlass::epilogue::fusion::Sm90AccFetch>;

}  // namespace epifuse::bench

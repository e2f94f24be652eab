#include "bench/static_epilogue_config.cuh"
#include "bench/static_epilogue_gemm.hpp"

namespace epifuse::bench {

const char* static_gemm_twin_kernel() { return "sm90_bf16_bf16_coop_128x256x64_c2x1"; }

Status static_gemm(const GemmArgs& args, cudaStream_t stream) {
  return sm90::gemm_custom<StaticConfig<void>, CastOnly>(args, {}, stream);
}

}  // namespace epifuse::bench

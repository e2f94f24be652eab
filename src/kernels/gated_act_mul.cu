// One thread per 16-column block of h (8 gate and 8 up values: four 16-byte loads) and its 8
// outputs (one 16-byte store), grid-stride over M·N/8 blocks with 64-bit indices.
#include "kernels/gated_act_mul.hpp"

#include <algorithm>
#include <string>

#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include "epilogue/floats.cuh"
#include "epilogue/gated_math.cuh"

namespace epifuse::detail {
namespace {

constexpr int kThreads = 256;
constexpr std::int64_t kMaxBlocks = 8192;

using Eight = device::Floats<8>;

__device__ __forceinline__ Eight load8(const float* p) {
  const float4 a = *reinterpret_cast<const float4*>(p);
  const float4 b = *reinterpret_cast<const float4*>(p + 4);
  return {{a.x, a.y, a.z, a.w, b.x, b.y, b.z, b.w}};
}

__device__ __forceinline__ std::uint32_t pack2(float a, float b, __nv_bfloat16) {
  const __nv_bfloat162 v = __floats2bfloat162_rn(a, b);
  return *reinterpret_cast<const std::uint32_t*>(&v);
}
__device__ __forceinline__ std::uint32_t pack2(float a, float b, __half) {
  const __half2 v = __floats2half2_rn(a, b);
  return *reinterpret_cast<const std::uint32_t*>(&v);
}

template <class Out>
__global__ void __launch_bounds__(kThreads) act_mul_packed(const float* h, const float* bias, std::int64_t M,
                                                           std::int64_t N, Out* out, std::int64_t ldo,
                                                           device::GatedMath math) {
  const std::int64_t blocks_per_row = N / 8;
  const std::int64_t total = M * blocks_per_row;
  for (std::int64_t i = blockIdx.x * static_cast<std::int64_t>(kThreads) + threadIdx.x; i < total;
       i += static_cast<std::int64_t>(gridDim.x) * kThreads) {
    const std::int64_t row = i / blocks_per_row, block = i % blocks_per_row;
    const float* hp = h + row * 2 * N + 16 * block;
    Eight gate = load8(hp), up = load8(hp + 8);
    if (bias != nullptr) {
      const Eight bg = load8(bias + 16 * block), bu = load8(bias + 16 * block + 8);
#pragma unroll
      for (int k = 0; k < 8; ++k) {
        gate[k] += bg[k];
        up[k] += bu[k];
      }
    }
    device::limit_and_activate(gate, up, math);
    uint4 packed;
    std::uint32_t* words = &packed.x;
#pragma unroll
    for (int k = 0; k < 4; ++k) {
      words[k] = pack2(math.scale * gate[2 * k] * up[2 * k], math.scale * gate[2 * k + 1] * up[2 * k + 1], Out{});
    }
    *reinterpret_cast<uint4*>(out + row * ldo + 8 * block) = packed;
  }
}

}  // namespace

Status gated_act_mul(const GatedMlpArgs& args, const float* h, cudaStream_t stream) {
  const std::int64_t total = args.M * (args.N / 8);
  if (total == 0) return Status::success();
  const std::int64_t blocks = std::min((total + kThreads - 1) / kThreads, kMaxBlocks);
  const device::GatedMath math = device::gated_math(args);
  const auto grid = static_cast<unsigned>(blocks);
  if (args.out_dtype == DType::kBF16) {
    act_mul_packed<<<grid, kThreads, 0, stream>>>(h, args.w.bias, args.M, args.N,
                                                  static_cast<__nv_bfloat16*>(args.out), args.ldo, math);
  } else {
    act_mul_packed<<<grid, kThreads, 0, stream>>>(h, args.w.bias, args.M, args.N, static_cast<__half*>(args.out),
                                                  args.ldo, math);
  }
  if (const cudaError_t err = cudaGetLastError(); err != cudaSuccess) {
    return Status::cuda_error(std::string("gated_mlp: the act·mul kernel after cuBLASLt: ") + cudaGetErrorName(err) +
                              " (" + cudaGetErrorString(err) + ")");
  }
  return Status::success();
}

}  // namespace epifuse::detail

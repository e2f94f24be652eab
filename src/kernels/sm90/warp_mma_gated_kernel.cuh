// The gated MLP for a few tokens (decode) on the warp-mma kernel (warp_mma_mainloop.cuh). Dispatch
// runs it in bf16 at 1-8 tokens with K < 16384, off HBM3, on weights whose blocks fit one wave of
// its CTAs (gated_mlp_heuristics.cpp, warp_mma_fits_one_wave); fp16 only when forced.
//
// A block of 16 packed rows is 8 gate rows, then their 8 up rows (packing/gate_up.hpp), so lane
// (g, t) holds the gate (row g) and up (row g + 8) value of output column 8·block + g for tokens
// 2t and 2t + 1: every pair meets in one thread, as in the wgmma kernels.
#pragma once

#include <cstdint>
#include <string>
#include <type_traits>

#include "epifuse/detail/launch_plan.hpp"
#include "epifuse/gated_mlp.hpp"
#include "epilogue/gated_math.cuh"
#include "kernels/sm90/warp_mma_mainloop.cuh"

namespace epifuse::kernels::sm90 {
namespace warp_mma {

// One gate/up pair per token of a lane's two tokens, for limit_and_activate.
struct TokenPair {
  static constexpr int kElements = 2;
  float v[2];
  __device__ float& operator[](int i) { return v[i]; }
  __device__ float operator[](int i) const { return v[i]; }
};

struct GatedStore {
  struct Params {
    const float* bias;  // packed [2N] or null
    void* out;
    std::int64_t ldo;
    device::GatedMath math;
    std::int64_t bias_stride = 0;  // grouped: floats from one expert's packed bias to the next
  };

  // The params of expert `expert`, whose rows of out start at `first_row` (grouped kernels).
  template <class Element>
  static __device__ __forceinline__ Params at_rows(Params p, std::int64_t expert, std::int64_t first_row) {
    if (p.bias != nullptr) p.bias += expert * p.bias_stride;
    p.out = static_cast<Element*>(p.out) + first_row * p.ldo;
    return p;
  }

  template <class Element>
  static __device__ __forceinline__ void store(const Params& p, const float (&sum)[4], std::int64_t block, int g, int t,
                                               int M) {
    const float bias_gate = p.bias != nullptr ? p.bias[block * 16 + g] : 0.0f;
    const float bias_up = p.bias != nullptr ? p.bias[block * 16 + 8 + g] : 0.0f;
    TokenPair gate_pair{{sum[0] + bias_gate, sum[1] + bias_gate}};
    TokenPair up_pair{{sum[2] + bias_up, sum[3] + bias_up}};
    device::limit_and_activate(gate_pair, up_pair, p.math);
    Element* out = static_cast<Element*>(p.out);
#pragma unroll
    for (int j = 0; j < 2; ++j) {
      const int token = 2 * t + j;
      if (token < M) out[token * p.ldo + block * 8 + g] = round_to<Element>(p.math.scale * gate_pair[j] * up_pair[j]);
    }
  }
};

}  // namespace warp_mma

// The registry's launcher of a warp_mma gated row (instantiate.cuh).
template <class Row>
struct WarpMmaGatedKernel {
  static constexpr KernelKey kKey = Row::kKey;
  static_assert(kKey.op == Op::kGatedMlp && kKey.arch == Arch::kSm90 && kKey.swap_ab, "a swapped gated row");
  static_assert(kKey.tile.m == 16 && kKey.tile.n == warp_mma::kTokens && kKey.tile.k == warp_mma::kStepK,
                "the mma.m16n8k16 warp tile: 16 packed rows, 8 tokens, 64-element k steps");
  static_assert(kKey.a == kKey.b && kKey.d == kKey.a, "x, the weight and out share one element type");
  using Element = std::conditional_t<kKey.a == DType::kBF16, __nv_bfloat16, __half>;
  static_assert(kKey.a == DType::kBF16 || kKey.a == DType::kFP16, "bf16 or fp16");

  static std::size_t workspace_bytes(const GatedMlpArgs&, const detail::LaunchPlan&) { return 0; }

  static Status run(const GatedMlpArgs& args, const detail::LaunchPlan& plan, cudaStream_t stream) {
    const std::int64_t blocks = args.w.N / 8;
    const int splits = plan.splits;
    const std::int64_t steps = (args.w.K + warp_mma::kStepK - 1) / warp_mma::kStepK;
    const warp_mma::Mainloop mainloop{args.x,     args.ldx,  static_cast<int>(args.M), args.w.weight,
                                      args.w.ld,  args.w.K,  2 * args.w.N,             (steps + splits - 1) / splits};
    const warp_mma::GatedStore::Params store{args.w.bias, args.out, args.ldo, device::gated_math(args)};
    const cudaError_t err =
        warp_mma::launch_chosen<Element, warp_mma::GatedStore>(mainloop, store, blocks, splits, plan.sm_count, stream);
    if (err != cudaSuccess) {
      return Status::cuda_error(std::string("gated_mlp: launching ") + name(kKey) + ": " + cudaGetErrorName(err) + " (" +
                                cudaGetErrorString(err) + ")");
    }
    return Status::success();
  }
};

}  // namespace epifuse::kernels::sm90

// The GEMM for a few tokens (decode) on the warp-mma kernel (warp_mma_mainloop.cuh): D = cast(act(
// alpha·A·Bᵀ + col_bias)) with the weight B's rows on the mma's 16-row side and A's tokens on its
// 8-wide side: at most 8 tokens (tile 16x8x64) or 16 in two token tiles (16x16x64). A block is 16
// consecutive output columns, so lane (g, t) holds columns 16·block + g and 16·block + g + 8 for
// tokens 2t and 2t + 1 of a tile. An N of 8 more than a multiple of 16 leaves the last block's
// upper 8 rows unread and unstored.
#pragma once

#include <cstdint>
#include <string>
#include <type_traits>

#include "epifuse/detail/launch_plan.hpp"
#include "epifuse/gemm.hpp"
#include "epilogue/activation.cuh"
#include "kernels/sm90/warp_mma_mainloop.cuh"

namespace epifuse::kernels::sm90 {
namespace warp_mma {

struct GemmStore {
  struct Params {
    float alpha;
    const float* col_bias;  // [N] fp32 or null (gemm() widens a 16-bit bias first)
    device::ActivationProgram activation;
    void* d;
    std::int64_t ldd;
    std::int64_t N;
  };

  // The params of an expert whose rows of D start at `first_row` (grouped kernels: no bias).
  template <class Element>
  static __device__ __forceinline__ Params at_rows(Params p, std::int64_t, std::int64_t first_row) {
    p.d = static_cast<Element*>(p.d) + first_row * p.ldd;
    return p;
  }

  // A lane's values of one column for its two tokens, for activate.
  struct TokenValues {
    static constexpr int kElements = 2;
    float v[2];
    __device__ float& operator[](int i) { return v[i]; }
    __device__ float operator[](int i) const { return v[i]; }
  };

  template <class Element>
  static __device__ __forceinline__ void store(const Params& p, const float (&sum)[4], std::int64_t block, int g, int t,
                                               int M) {
    Element* d = static_cast<Element*>(p.d);
#pragma unroll
    for (int half = 0; half < 2; ++half) {
      const std::int64_t column = block * kBlockRows + 8 * half + g;
      if (column >= p.N) continue;
      const float bias = p.col_bias != nullptr ? p.col_bias[column] : 0.0f;
      TokenValues y{{fmaf(p.alpha, sum[2 * half], bias), fmaf(p.alpha, sum[2 * half + 1], bias)}};
      device::activate(y, p.activation);
#pragma unroll
      for (int j = 0; j < 2; ++j) {
        const int token = 2 * t + j;
        if (token < M) d[token * p.ldd + column] = round_to<Element>(y[j]);
      }
    }
  }
};

}  // namespace warp_mma

// The registry's launcher of a warp_mma GEMM row (instantiate.cuh).
template <class Row>
struct WarpMmaGemmKernel {
  static constexpr KernelKey kKey = Row::kKey;
  static_assert(kKey.op == Op::kGemm && kKey.arch == Arch::kSm90 && kKey.swap_ab, "a swapped GEMM row");
  static_assert(kKey.tile.m == warp_mma::kBlockRows &&
                    (kKey.tile.n == warp_mma::kTokens || kKey.tile.n == 2 * warp_mma::kTokens) &&
                    kKey.tile.k == warp_mma::kStepK,
                "mma.m16n8k16 warp tiles: 16 weight rows, 8 or 16 tokens, 64-element k steps");
  static constexpr int kTokenTiles = kKey.tile.n / warp_mma::kTokens;
  static_assert(kKey.a == kKey.b && kKey.d == kKey.a, "A, B and D share one element type");
  static_assert(kKey.a == DType::kBF16 || kKey.a == DType::kFP16, "bf16 or fp16");
  static_assert(kKey.epilogue == EpilogueCoverage::kBiasActivation && !kKey.has_c, "alpha, column bias, activation");
  using Element = std::conditional_t<kKey.a == DType::kBF16, __nv_bfloat16, __half>;

  static std::size_t workspace_bytes(const GemmArgs&, const detail::LaunchPlan&) { return 0; }

  static Status run(const GemmArgs& args, const detail::LaunchPlan& plan, cudaStream_t stream) {
    const std::int64_t blocks = (args.N + warp_mma::kBlockRows - 1) / warp_mma::kBlockRows;
    const int splits = plan.splits;
    const std::int64_t steps = (args.K + warp_mma::kStepK - 1) / warp_mma::kStepK;
    const warp_mma::Mainloop mainloop{args.A, args.lda, static_cast<int>(args.M), args.B,
                                      args.ldb, args.K, args.N, (steps + splits - 1) / splits};
    const Epilogue& e = args.epilogue;
    const warp_mma::GemmStore::Params store{
        e.alpha, static_cast<const float*>(e.col_bias),
        device::compile_activation(e.activation, e.leaky_slope, e.clamp_lo, e.clamp_hi), args.D, args.ldd, args.N};
    const cudaError_t err =
        warp_mma::launch_chosen<Element, warp_mma::GemmStore, kTokenTiles>(mainloop, store, blocks, splits,
                                                                            plan.sm_count, stream);
    if (err != cudaSuccess) {
      return Status::cuda_error(std::string("gemm: launching ") + name(kKey) + ": " + cudaGetErrorName(err) + " (" +
                                cudaGetErrorString(err) + ")");
    }
    return Status::success();
  }
};

}  // namespace epifuse::kernels::sm90

// Compile-time epilogue composition: a C++ user's own CUTLASS epilogue visitor tree (EVT),
// launched through epifuse's sm90 kernel assembly, validation and workspace handling.
//
//   D[M,N] = gelu_erf(acc[M,N] · scale[n] + bias[n])      (per-channel dequantization + GELU)
//
// The tree is fixed at compile time, so it carries only what it uses; epifuse's run-time
// epilogue (epifuse::gemm) covers the same math without compiling anything new. Build target:
// `custom_epilogue`; it runs the GEMM once and checks it against the fp64 reference.
#include "epifuse/sm90/gemm_custom.cuh"  // first: before any CUTLASS header, as it requires

#include <cmath>
#include <cstdio>
#include <vector>

#include <cutlass/epilogue/fusion/sm90_visitor_compute_tma_warpspecialized.hpp>
#include <cutlass/epilogue/fusion/sm90_visitor_load_tma_warpspecialized.hpp>
#include <cutlass/epilogue/thread/activation.h>

#include "testing/gemm_check.hpp"
#include "testing/random.hpp"

namespace fusion = cutlass::epilogue::fusion;
using cute::_0;
using cute::_1;
using Tile = cute::Shape<cute::_128, cute::_128, cute::_64>;  // (BLK_M, BLK_N, BLK_K)
constexpr auto kRound = cutlass::FloatRoundStyle::round_to_nearest;

// A per-column (n) fp32 vector: CUTLASS calls a vector broadcast along N a "row" broadcast.
using ColumnVector = fusion::Sm90RowBroadcast<0, Tile, float, float, cute::Stride<_0, _1, _0>>;

using DequantBiasGelu =
    fusion::Sm90EVT<fusion::Sm90Compute<cutlass::epilogue::thread::GELU, cutlass::bfloat16_t, float, kRound>,  // gelu(·) → bf16
                    fusion::Sm90EVT<fusion::Sm90Compute<cutlass::multiply_add, float, float, kRound>,  // acc·scale + bias
                                    fusion::Sm90AccFetch, ColumnVector, ColumnVector>>;

using Config = epifuse::sm90::KernelConfig<cutlass::bfloat16_t, cutlass::bfloat16_t, Tile,
                                           cute::Shape<_1, _1, _1>, epifuse::sm90::Cooperative,
                                           /*kSwapAB=*/false, /*ElementC=*/void>;

int main() {
  std::string why;
  if (!epifuse::testing::hopper_available(&why)) {
    std::printf("custom_epilogue: %s; nothing to run.\n", why.c_str());
    return 0;
  }
  // Reuse the test harness for operands: col_scale and col_bias stand for scale and bias.
  epifuse::testing::GemmCase c;
  c.M = 1000;
  c.N = 2048;
  c.K = 1024;
  c.epilogue.col_scale = true;
  c.epilogue.col_bias = true;
  c.epilogue.activation = epifuse::Activation::kGeluErf;
  epifuse::testing::GemmProblem problem(c, epifuse::testing::run_seed());

  // The tree's arguments mirror its shape: children first, then the node's own.
  const epifuse::GemmArgs& e = problem.args();
  const auto* bias = static_cast<const float*>(e.epilogue.col_bias);  // the harness's bias is fp32
  DequantBiasGelu::Arguments tree{
      {{}, {e.epilogue.col_scale, 1.0f, {}}, {bias, 0.0f, {}}, {}},  // acc·scale + bias
      {},                                                         // gelu
  };
  epifuse::GemmArgs args = e;
  args.epilogue = {};  // the run-time epilogue stays unused on this path
  if (epifuse::Status s = epifuse::sm90::gemm_custom<Config, DequantBiasGelu>(args, tree, nullptr); !s.ok()) {
    std::printf("custom_epilogue: %s\n", s.to_string().c_str());
    return 1;
  }
  const epifuse::testing::ReferenceAccumulators ref = epifuse::testing::reference_accumulators(problem);
  const epifuse::testing::CheckReport report =
      epifuse::testing::check_external_output(problem, ref, e.D, e.ldd, epifuse::DType::kBF16, c.epilogue,
                                              epifuse::testing::Judge::kFused);
  std::printf("%s%s\n", report.text.c_str(), report.passed ? "custom_epilogue: pass" : "custom_epilogue: FAIL");
  return report.passed ? 0 : 1;
}

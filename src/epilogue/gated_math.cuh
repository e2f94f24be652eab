// What the gated MLP does to one gate/up pair of fp32 values (acc + bias), shared by the fused
// kernels' store (sm90_gated_store.cuh) and the delegated path's act·mul kernel
// (kernels/gated_act_mul.cu), so that both round the same value once:
//   out = scale · act(min(g, limit)) · clamp(u, −limit, limit)
#pragma once

#include <cuda_runtime.h>

#include <limits>

#include "epifuse/gated_mlp.hpp"
#include "epilogue/activation.cuh"

namespace epifuse::device {

struct GatedMath {
  ActivationProgram activation;  // of the gate
  float limit = std::numeric_limits<float>::infinity();
  float scale = 1.0f;
};

// Host: the math of a call.
inline GatedMath gated_math(const GatedMlpArgs& args) {
  GatedMath math;
  math.activation = compile_activation(gate_activation(args.activation), 0.0f, 0.0f, 0.0f);
  math.limit = args.limit;
  math.scale = args.scale;
  return math;
}

// Applies the limit and the activation to fragments of pairs (anything with kElements and
// operator[] of float): afterwards out[k] = scale · gate[k] · up[k].
template <class Fragment>
__device__ __forceinline__ void limit_and_activate(Fragment& gate, Fragment& up, const GatedMath& math) {
  constexpr int kPairs = static_cast<int>(Fragment::kElements);
  if (math.limit < std::numeric_limits<float>::infinity()) {  // uniform across the launch
    // Comparisons rather than fminf/fmaxf, which would turn a NaN into the limit.
#pragma unroll
    for (int k = 0; k < kPairs; ++k) {
      gate[k] = gate[k] > math.limit ? math.limit : gate[k];
      up[k] = up[k] > math.limit ? math.limit : (up[k] < -math.limit ? -math.limit : up[k]);
    }
  }
  activate(gate, math.activation);
}

}  // namespace epifuse::device

#include "reference/gated.hpp"

#include <algorithm>
#include <cmath>

#include "reference/activation.hpp"
#include "reference/gemm.hpp"
#include "reference/numeric.hpp"

namespace epifuse::reference {
double gated_value(const GatedOperands& g, double gate, double up) {
  if (g.limit > 0.0 && std::isfinite(g.limit)) {
    gate = std::min(gate, g.limit);
    up = std::clamp(up, -g.limit, g.limit);
  }
  return g.scale * activate({gate_activation(g.activation)}, gate) * up;
}

GateUpValues gate_up_rows(const GatedOperands& g, const std::vector<std::int64_t>& rows) {
  GateUpValues v;
  v.gate = gemm_rows({0, g.N, g.K, g.x, g.ldx, g.gate, g.K}, rows);
  v.up = gemm_rows({0, g.N, g.K, g.x, g.ldx, g.up, g.K}, rows);
  if (g.gate_bias != nullptr) {
    for (std::size_t i = 0; i < v.gate.size(); ++i) {
      const std::int64_t n = static_cast<std::int64_t>(i) % g.N;
      v.gate[i] += g.gate_bias[n];
      v.up[i] += g.up_bias[n];
    }
  }
  return v;
}

std::vector<double> gated_rows(const GatedOperands& g, const GateUpValues& v) {
  std::vector<double> out(v.gate.size());
  for (std::size_t i = 0; i < out.size(); ++i) out[i] = gated_value(g, v.gate[i], v.up[i]);
  return out;
}

std::vector<double> unfused_gated_rows(const GatedOperands& g, DType dtype, const GateUpValues& v) {
  std::vector<double> out(v.gate.size());
  for (std::size_t i = 0; i < out.size(); ++i) {
    const float gate = round_to(dtype, v.gate[i]);
    const float up = round_to(dtype, v.up[i]);
    out[i] = round_to(dtype, static_cast<float>(gated_value(g, gate, up)));
  }
  return out;
}

}  // namespace epifuse::reference

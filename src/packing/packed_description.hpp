// The PackedGateUp that describes what a pack of `src` into (packed_weight, packed_bias) wrote.
#pragma once

#include "epifuse/packing/gate_up.hpp"

namespace epifuse::detail {

inline PackedGateUp packed_description(const GateUpSource& src, const void* packed_weight, const float* packed_bias) {
  PackedGateUp p;
  p.weight = packed_weight;
  p.ld = src.K;
  p.bias = src.gate_bias != nullptr ? packed_bias : nullptr;
  p.N = src.N;
  p.K = src.K;
  p.dtype = src.dtype;
  p.layout = GateUpLayout::kGateUpBlocks8;
  return p;
}

}  // namespace epifuse::detail

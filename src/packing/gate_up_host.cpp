// Host pack/unpack of the kGateUpBlocks8 layout, and the view of a fused checkpoint tensor.
#include <cstdint>
#include <cstring>

#include "epifuse/packing/gate_up.hpp"
#include "packing/packed_description.hpp"
#include "validate/gate_up.hpp"

namespace epifuse {

GateUpSource gate_up_from_fused(const void* fused, const float* fused_bias, std::int64_t N, std::int64_t K,
                                std::int64_t ld, DType dtype, FusedGateUpOrder order) {
  const auto* base = static_cast<const unsigned char*>(fused);
  const std::size_t half = static_cast<std::size_t>(N) * static_cast<std::size_t>(ld) * dtype_bytes(dtype);
  const bool gate_first = order == FusedGateUpOrder::kGateThenUp;
  GateUpSource s;
  s.gate = base == nullptr ? nullptr : (gate_first ? base : base + half);
  s.up = base == nullptr ? nullptr : (gate_first ? base + half : base);
  s.ld = ld;
  if (fused_bias != nullptr) {
    s.gate_bias = gate_first ? fused_bias : fused_bias + N;
    s.up_bias = gate_first ? fused_bias + N : fused_bias;
  }
  s.N = N;
  s.K = K;
  s.dtype = dtype;
  return s;
}

Status pack_gate_up_host(const GateUpSource& src, void* packed_weight, float* packed_bias, PackedGateUp* packed) {
  if (Status s = detail::check_pack_args(src, packed_weight, packed_bias, packed, /*device=*/false); !s.ok()) return s;
  const std::size_t row_bytes = static_cast<std::size_t>(src.K) * dtype_bytes(src.dtype);
  const std::size_t src_stride = static_cast<std::size_t>(src.ld) * dtype_bytes(src.dtype);
  auto* dst = static_cast<unsigned char*>(packed_weight);
  for (std::int64_t n = 0; n < src.N; ++n) {
    for (bool is_up : {false, true}) {
      const auto* from = static_cast<const unsigned char*>(is_up ? src.up : src.gate) + n * src_stride;
      std::memcpy(dst + packed_gate_up_row(n, is_up) * row_bytes, from, row_bytes);
      if (src.gate_bias != nullptr) packed_bias[packed_gate_up_row(n, is_up)] = (is_up ? src.up_bias : src.gate_bias)[n];
    }
  }
  *packed = detail::packed_description(src, packed_weight, packed_bias);
  return Status::success();
}

Status unpack_gate_up_host(const PackedGateUp& packed, void* gate, void* up, float* gate_bias, float* up_bias) {
  if (Status s = detail::check_unpack_args(packed, gate, up, gate_bias, up_bias, /*device=*/false); !s.ok()) return s;
  const std::size_t row_bytes = static_cast<std::size_t>(packed.K) * dtype_bytes(packed.dtype);
  const auto* from = static_cast<const unsigned char*>(packed.weight);
  for (std::int64_t n = 0; n < packed.N; ++n) {
    for (bool is_up : {false, true}) {
      auto* to = static_cast<unsigned char*>(is_up ? up : gate) + n * row_bytes;
      std::memcpy(to, from + packed_gate_up_row(n, is_up) * row_bytes, row_bytes);
      if (packed.bias != nullptr) (is_up ? up_bias : gate_bias)[n] = packed.bias[packed_gate_up_row(n, is_up)];
    }
  }
  return Status::success();
}

}  // namespace epifuse

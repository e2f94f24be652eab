// Host pack/unpack of the kGateUpBlocks8 layout and the rules every pack function shares.
#include <cstdint>
#include <cstring>
#include <limits>
#include <string>

#include "dispatch/byte_ranges.hpp"
#include "epifuse/gate_up_packing.hpp"
#include "pack/gate_up_pack_rules.hpp"

namespace epifuse {
namespace detail {
namespace {

Status invalid(const std::string& what) { return Status::invalid_argument("pack_gate_up: " + what); }

bool aligned16(const void* p) { return aligned(p, 16); }

bool overlap(const void* a, std::size_t a_bytes, const void* b, std::size_t b_bytes) {
  return overlaps(bytes_range("a", a, a_bytes), bytes_range("b", b, b_bytes));
}

Status check_sizes(std::int64_t N, std::int64_t K, DType dtype) {
  if (dtype != DType::kBF16 && dtype != DType::kFP16) return invalid("dtype must be bf16 or fp16");
  if (N <= 0 || N % 8 != 0) return invalid("N (" + std::to_string(N) + ") must be a positive multiple of 8");
  if (2 * N > std::numeric_limits<std::int32_t>::max()) return invalid("2N must be < 2^31");
  if (K <= 0 || K % 8 != 0) return invalid("K (" + std::to_string(K) + ") must be a positive multiple of 8");
  return Status::success();
}

}  // namespace

Status check_pack_args(const GateUpSource& src, const void* packed_weight, const float* packed_bias, bool device) {
  if (Status s = check_sizes(src.N, src.K, src.dtype); !s.ok()) return s;
  if (src.ld < src.K) return invalid("ld (" + std::to_string(src.ld) + ") must be >= K (" + std::to_string(src.K) + ")");
  if (src.gate == nullptr || src.up == nullptr) return invalid("gate and up must be non-null");
  if (packed_weight == nullptr) return invalid("packed_weight is null");
  if ((src.gate_bias == nullptr) != (src.up_bias == nullptr)) return invalid("give both biases or neither");
  if (src.gate_bias != nullptr && packed_bias == nullptr) return invalid("biases given but packed_bias is null");
  if (device) {
    if (src.ld % 8 != 0) return invalid("ld must be a multiple of 8 elements on the device");
    if (!aligned16(src.gate) || !aligned16(src.up) || !aligned16(packed_weight)) {
      return invalid("gate, up and packed_weight must be 16-byte aligned on the device");
    }
  }
  const std::size_t elem = dtype_bytes(src.dtype);
  const std::size_t source_bytes = static_cast<std::size_t>((src.N - 1) * src.ld + src.K) * elem;
  const std::size_t packed_bytes = static_cast<std::size_t>(2 * src.N * src.K) * elem;
  if (overlap(packed_weight, packed_bytes, src.gate, source_bytes) ||
      overlap(packed_weight, packed_bytes, src.up, source_bytes)) {
    return invalid("packed_weight overlaps gate or up (packing is not in place)");
  }
  const std::size_t bias_bytes = static_cast<std::size_t>(src.N) * sizeof(float);
  if (overlap(packed_bias, 2 * bias_bytes, src.gate_bias, bias_bytes) ||
      overlap(packed_bias, 2 * bias_bytes, src.up_bias, bias_bytes)) {
    return invalid("packed_bias overlaps a source bias");
  }
  return Status::success();
}

Status check_unpack_args(const PackedGateUp& packed, const void* gate, const void* up, const float* gate_bias,
                         const float* up_bias, bool device) {
  if (packed.layout != GateUpLayout::kGateUpBlocks8) return invalid("the weight is not packed as kGateUpBlocks8");
  if (Status s = check_sizes(packed.N, packed.K, packed.dtype); !s.ok()) return s;
  if (packed.ld != packed.K) return invalid("a packed weight has ld == K");
  if (packed.weight == nullptr || gate == nullptr || up == nullptr) return invalid("weight, gate and up must be non-null");
  if (packed.bias != nullptr && (gate_bias == nullptr || up_bias == nullptr)) {
    return invalid("the packed weight has a bias: gate_bias and up_bias must be non-null");
  }
  if (device && (!aligned16(packed.weight) || !aligned16(gate) || !aligned16(up))) {
    return invalid("weight, gate and up must be 16-byte aligned on the device");
  }
  const std::size_t half = static_cast<std::size_t>(packed.N * packed.K) * dtype_bytes(packed.dtype);
  if (overlap(gate, half, up, half) || overlap(gate, half, packed.weight, 2 * half) ||
      overlap(up, half, packed.weight, 2 * half)) {
    return invalid("gate, up and the packed weight must not overlap");
  }
  return Status::success();
}

PackedGateUp packed_description(const GateUpSource& src, const void* packed_weight, const float* packed_bias) {
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

}  // namespace detail

GateUpSource gate_up_from_fused(const void* fused, const float* fused_bias, std::int64_t N, std::int64_t K,
                                std::int64_t ld, DType dtype, FusedGateUpOrder order) {
  const auto* base = static_cast<const unsigned char*>(fused);
  const std::size_t half = static_cast<std::size_t>(N * ld) * dtype_bytes(dtype);
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
  if (packed == nullptr) return Status::invalid_argument("pack_gate_up: the PackedGateUp output is null");
  if (Status s = detail::check_pack_args(src, packed_weight, packed_bias, /*device=*/false); !s.ok()) return s;
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

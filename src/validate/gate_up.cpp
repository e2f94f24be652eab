#include "validate/gate_up.hpp"

#include <string>

#include "validate/operand_rules.hpp"

namespace epifuse::detail {
namespace {

constexpr const char* kPack = "pack_gate_up";
constexpr const char* kUnpack = "unpack_gate_up";

Status check_sizes(const char* op, std::int64_t N, std::int64_t K, DType dtype) {
  if (dtype != DType::kBF16 && dtype != DType::kFP16) return invalid(op, "dtype must be bf16 or fp16");
  if (N <= 0 || N % 8 != 0) return invalid(op, "N (" + std::to_string(N) + ") must be a positive multiple of 8");
  if (K <= 0 || K % 8 != 0) return invalid(op, "K (" + std::to_string(K) + ") must be a positive multiple of 8");
  if (N > kMaxExtent / 2) return invalid(op, "2N (" + std::to_string(2 * N) + ") must be < 2^31");
  if (K > kMaxExtent) return invalid(op, "K (" + std::to_string(K) + ") must be < 2^31");
  return Status::success();
}

// Both biases or neither, 4-byte aligned fp32.
Status check_bias_pair(const char* op, const char* first, const float* a, const char* second, const float* b) {
  if ((a == nullptr) != (b == nullptr)) return invalid(op, std::string("give both ") + first + " and " + second + " or neither");
  if (a == nullptr) return Status::success();
  for (Status s : {check_pointer(op, first, a, sizeof(float)), check_pointer(op, second, b, sizeof(float))}) {
    if (!s.ok()) return s;
  }
  return Status::success();
}

// Appends operands' byte ranges to lists (a null operand appends nothing).
class RangeList {
 public:
  explicit RangeList(const char* op) : op_(op) {}

  Status matrix(detail::ByteRanges* to, const char* name, const void* ptr, std::int64_t rows, std::int64_t cols,
                std::int64_t ld, std::size_t elem) const {
    ByteRange r;
    if (Status s = matrix_range(op_, name, ptr, rows, cols, ld, elem, &r); !s.ok()) return s;
    to->push_back(r);
    return Status::success();
  }

  Status vector(detail::ByteRanges* to, const char* name, const float* v, std::int64_t length) const {
    if (v == nullptr) return Status::success();
    ByteRange r;
    if (Status s = bytes_range(op_, name, v, static_cast<std::uint64_t>(length) * sizeof(float), &r); !s.ok()) return s;
    to->push_back(r);
    return Status::success();
  }

 private:
  const char* op_;
};

}  // namespace

Status check_pack_args(const GateUpSource& src, const void* packed_weight, const float* packed_bias,
                       const PackedGateUp* packed, bool device) {
  if (packed == nullptr) return invalid(kPack, "the PackedGateUp output is null");
  if (Status s = check_sizes(kPack, src.N, src.K, src.dtype); !s.ok()) return s;
  if (src.ld < src.K) return invalid(kPack, "ld (" + std::to_string(src.ld) + ") must be >= K (" + std::to_string(src.K) + ")");
  if (src.gate == nullptr || src.up == nullptr) return invalid(kPack, "gate and up must be non-null");
  if (packed_weight == nullptr) return invalid(kPack, "packed_weight is null");
  if (Status s = check_bias_pair(kPack, "gate_bias", src.gate_bias, "up_bias", src.up_bias); !s.ok()) return s;
  if (src.gate_bias != nullptr) {
    if (Status s = check_pointer(kPack, "packed_bias", packed_bias, sizeof(float)); !s.ok()) return s;
  }
  if (device) {
    if (Status s = check_row_length(kPack, "ld", src.ld, src.dtype); !s.ok()) return s;
    for (Status s : {check_pointer(kPack, "gate", src.gate, 16), check_pointer(kPack, "up", src.up, 16),
                     check_pointer(kPack, "packed_weight", packed_weight, 16)}) {
      if (!s.ok()) return s;
    }
  }
  const std::size_t elem = dtype_bytes(src.dtype);
  detail::ByteRanges sources, destinations;
  RangeList list(kPack);
  for (Status s : {list.matrix(&sources, "gate", src.gate, src.N, src.K, src.ld, elem),
                   list.matrix(&sources, "up", src.up, src.N, src.K, src.ld, elem),
                   list.matrix(&destinations, "packed_weight", packed_weight, 2 * src.N, src.K, src.K, elem),
                   list.vector(&sources, "gate_bias", src.gate_bias, src.N),
                   list.vector(&sources, "up_bias", src.up_bias, src.N),
                   list.vector(&destinations, "packed_bias", src.gate_bias ? packed_bias : nullptr, 2 * src.N)}) {
    if (!s.ok()) return s;
  }
  return check_disjoint(kPack, destinations, sources);
}

Status check_unpack_args(const PackedGateUp& packed, const void* gate, const void* up, const float* gate_bias,
                         const float* up_bias, bool device) {
  if (packed.layout != GateUpLayout::kGateUpBlocks8) return invalid(kUnpack, "the weight is not packed as kGateUpBlocks8");
  if (Status s = check_sizes(kUnpack, packed.N, packed.K, packed.dtype); !s.ok()) return s;
  if (packed.ld != packed.K) return invalid(kUnpack, "a packed weight has ld == K");
  if (packed.weight == nullptr || gate == nullptr || up == nullptr) {
    return invalid(kUnpack, "the packed weight, gate and up must be non-null");
  }
  if (packed.bias != nullptr) {
    if (gate_bias == nullptr || up_bias == nullptr) {
      return invalid(kUnpack, "the packed weight has a bias: gate_bias and up_bias must be non-null");
    }
    for (Status s : {check_pointer(kUnpack, "the packed bias", packed.bias, sizeof(float)),
                     check_bias_pair(kUnpack, "gate_bias", gate_bias, "up_bias", up_bias)}) {
      if (!s.ok()) return s;
    }
  }
  if (device) {
    for (Status s : {check_pointer(kUnpack, "the packed weight", packed.weight, 16),
                     check_pointer(kUnpack, "gate", gate, 16), check_pointer(kUnpack, "up", up, 16)}) {
      if (!s.ok()) return s;
    }
  }
  const std::size_t elem = dtype_bytes(packed.dtype);
  const std::int64_t N = packed.N, K = packed.K;
  const bool biases = packed.bias != nullptr;
  detail::ByteRanges sources, destinations;
  RangeList list(kUnpack);
  for (Status s : {list.matrix(&sources, "the packed weight", packed.weight, 2 * N, K, K, elem),
                   list.matrix(&destinations, "gate", gate, N, K, K, elem),
                   list.matrix(&destinations, "up", up, N, K, K, elem),
                   list.vector(&sources, "the packed bias", packed.bias, 2 * N),
                   list.vector(&destinations, "gate_bias", biases ? gate_bias : nullptr, N),
                   list.vector(&destinations, "up_bias", biases ? up_bias : nullptr, N)}) {
    if (!s.ok()) return s;
  }
  return check_disjoint(kUnpack, destinations, sources);
}

}  // namespace epifuse::detail

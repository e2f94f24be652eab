// Element types of the public API. Widths are data: every rule that depends on an element's size
// (TMA strides, alignment) is computed from dtype_bytes().
#pragma once

#include <cstddef>

namespace epifuse {

enum class DType {
  kBF16,     // bfloat16
  kFP16,     // IEEE half
  kFP32,     // IEEE single
  kFP8E4M3,  // 8-bit float, 4 exponent bits (no kernel takes it yet)
  kFP8E5M2,  // 8-bit float, 5 exponent bits (no kernel takes it yet)
};

constexpr std::size_t dtype_bytes(DType t) {
  switch (t) {
    case DType::kBF16:
    case DType::kFP16: return 2;
    case DType::kFP32: return 4;
    case DType::kFP8E4M3:
    case DType::kFP8E5M2: return 1;
  }
  return 0;
}

constexpr const char* to_string(DType t) {
  switch (t) {
    case DType::kBF16: return "bf16";
    case DType::kFP16: return "fp16";
    case DType::kFP32: return "fp32";
    case DType::kFP8E4M3: return "e4m3";
    case DType::kFP8E5M2: return "e5m2";
  }
  return "unknown dtype";
}

}  // namespace epifuse

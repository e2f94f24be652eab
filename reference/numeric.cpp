#include "reference/numeric.hpp"

#include <cstring>
#include <stdexcept>

#include <cuda_fp16.h>

namespace epifuse::reference {

float bf16_to_float(std::uint16_t bits) {
  const std::uint32_t u = static_cast<std::uint32_t>(bits) << 16;
  float f;
  std::memcpy(&f, &u, sizeof(f));
  return f;
}

std::uint16_t float_to_bf16(float value) {
  std::uint32_t u;
  std::memcpy(&u, &value, sizeof(u));
  if ((u & 0x7f800000u) == 0x7f800000u && (u & 0x007fffffu) != 0) return 0x7fc0;  // NaN stays NaN
  const std::uint32_t rounding = 0x7fffu + ((u >> 16) & 1u);                       // ties to even
  return static_cast<std::uint16_t>((u + rounding) >> 16);
}

float fp16_to_float(std::uint16_t bits) {
  __half_raw raw;
  raw.x = bits;
  return __half2float(__half(raw));
}

std::uint16_t float_to_fp16(float value) {
  const __half_raw raw = __half_raw(__float2half_rn(value));
  return raw.x;
}

float load_as_float(const void* data, DType dtype, std::int64_t i) {
  switch (dtype) {
    case DType::kBF16: return bf16_to_float(static_cast<const std::uint16_t*>(data)[i]);
    case DType::kFP16: return fp16_to_float(static_cast<const std::uint16_t*>(data)[i]);
    case DType::kFP32: return static_cast<const float*>(data)[i];
    case DType::kFP8E4M3:
    case DType::kFP8E5M2: break;
  }
  throw std::invalid_argument("load_as_float: no fp8 in the reference yet");
}

void store_float(void* data, DType dtype, std::int64_t i, float value) {
  switch (dtype) {
    case DType::kBF16: static_cast<std::uint16_t*>(data)[i] = float_to_bf16(value); return;
    case DType::kFP16: static_cast<std::uint16_t*>(data)[i] = float_to_fp16(value); return;
    case DType::kFP32: static_cast<float*>(data)[i] = value; return;
    case DType::kFP8E4M3:
    case DType::kFP8E5M2: break;
  }
  throw std::invalid_argument("store_float: no fp8 rounding in the reference yet");
}

float round_to(DType dtype, double value) {
  const float f = static_cast<float>(value);
  switch (dtype) {
    case DType::kBF16: return bf16_to_float(float_to_bf16(f));
    case DType::kFP16: return fp16_to_float(float_to_fp16(f));
    case DType::kFP32: return f;
    case DType::kFP8E4M3:
    case DType::kFP8E5M2: break;
  }
  throw std::invalid_argument("round_to: no fp8 rounding in the reference yet");
}

}  // namespace epifuse::reference

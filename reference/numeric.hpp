// Host conversions between fp32 and the 16-bit storage types, round to nearest even. FP8 types
// are not handled yet (std::invalid_argument).
#pragma once

#include <cstdint>

#include "epifuse/types.hpp"

namespace epifuse::reference {

float bf16_to_float(std::uint16_t bits);
std::uint16_t float_to_bf16(float value);
float fp16_to_float(std::uint16_t bits);
std::uint16_t float_to_fp16(float value);

// Value of element `i` of a device-layout buffer of `dtype`.
float load_as_float(const void* data, DType dtype, std::int64_t i);
// Stores `value` rounded to `dtype` (round to nearest even) as element `i` of such a buffer.
void store_float(void* data, DType dtype, std::int64_t i, float value);
// `value` rounded to `dtype` and back: what a store of that dtype keeps.
float round_to(DType dtype, double value);

}  // namespace epifuse::reference

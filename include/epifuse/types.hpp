// Element types and small shared vocabulary of the public API.
#pragma once

#include <cstddef>

namespace epifuse {

enum class DType {
  kBF16,  // bfloat16
  kFP16,  // IEEE half
  kFP32,  // IEEE single
};

constexpr std::size_t dtype_bytes(DType t) { return t == DType::kFP32 ? 4 : 2; }

const char* to_string(DType t);

}  // namespace epifuse

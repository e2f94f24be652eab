// Byte ranges of operands in device memory, for the aliasing and alignment rules every entry
// point checks before launching (gemm, gated_mlp, gate/up packing).
#pragma once

#include <cstddef>
#include <cstdint>

namespace epifuse::detail {

// Half-open byte range [begin, end) of an operand; empty for a null pointer.
struct ByteRange {
  const char* name;
  std::uintptr_t begin;
  std::uintptr_t end;
};

inline ByteRange bytes_range(const char* name, const void* ptr, std::size_t bytes) {
  const auto begin = reinterpret_cast<std::uintptr_t>(ptr);
  return {name, begin, ptr == nullptr ? begin : begin + bytes};
}

// A row-major [rows, ld] matrix's bytes, `cols` used per row.
inline ByteRange matrix_range(const char* name, const void* ptr, std::int64_t rows, std::int64_t cols, std::int64_t ld,
                              std::size_t elem_bytes) {
  return bytes_range(name, ptr, static_cast<std::size_t>((rows - 1) * ld + cols) * elem_bytes);
}

inline ByteRange vector_range(const char* name, const void* ptr, std::int64_t length) {
  return matrix_range(name, ptr, 1, length, length, sizeof(float));
}

inline bool overlaps(const ByteRange& a, const ByteRange& b) { return a.begin < b.end && b.begin < a.end; }

inline bool aligned(const void* ptr, std::size_t bytes) { return reinterpret_cast<std::uintptr_t>(ptr) % bytes == 0; }

}  // namespace epifuse::detail

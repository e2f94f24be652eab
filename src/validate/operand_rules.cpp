#include "validate/operand_rules.hpp"

#include <cmath>
#include <limits>

namespace epifuse::detail {

Status invalid(const char* op, const std::string& message) {
  return Status::invalid_argument(std::string(op) + ": " + message);
}

Status check_extent(const char* op, const char* name, std::int64_t value) {
  if (value < 0) return invalid(op, std::string(name) + " must be >= 0, got " + std::to_string(value));
  if (value > kMaxExtent) return invalid(op, std::string(name) + " must be < 2^31, got " + std::to_string(value));
  return Status::success();
}

Status check_row_length(const char* op, const char* name, std::int64_t extent, DType dtype) {
  if (extent % tma_granule_elements(dtype) != 0) {
    return invalid(op, std::string(name) + " (" + std::to_string(extent) + ") must be a multiple of " +
                           std::to_string(tma_granule_elements(dtype)) + " " + to_string(dtype) +
                           " elements (16-byte rows for TMA)");
  }
  return Status::success();
}

Status check_leading_dim(const char* op, const char* name, std::int64_t ld, const char* min_name, std::int64_t min,
                         DType dtype) {
  const auto label = [&] { return std::string(name) + " (" + std::to_string(ld) + ")"; };  // on failure only
  if (ld < min) return invalid(op, label() + " must be >= " + min_name + " (" + std::to_string(min) + ")");
  if (ld % tma_granule_elements(dtype) != 0) {
    return invalid(op, label() + " must be a multiple of " + std::to_string(tma_granule_elements(dtype)) +
                           " elements (16 bytes, a TMA stride rule)");
  }
  if (static_cast<std::uint64_t>(ld) >= kTmaMaxStrideBytes / dtype_bytes(dtype)) {
    return invalid(op, label() + " must be below 2^40 bytes (a TMA stride rule)");
  }
  return Status::success();
}

Status check_pointer(const char* op, const char* name, const void* ptr, std::size_t alignment) {
  if (ptr == nullptr) return invalid(op, std::string(name) + " is null");
  if (reinterpret_cast<std::uintptr_t>(ptr) % alignment != 0) {
    return invalid(op, std::string(name) + " must be " + std::to_string(alignment) + "-byte aligned");
  }
  return Status::success();
}

Status check_finite(const char* op, const char* name, float value) {
  if (!std::isfinite(value)) return invalid(op, std::string(name) + " must be finite");
  return Status::success();
}

Status bytes_range(const char* op, const char* name, const void* ptr, std::uint64_t bytes, ByteRange* range) {
  const auto begin = static_cast<std::uint64_t>(reinterpret_cast<std::uintptr_t>(ptr));
  if (bytes > std::numeric_limits<std::uint64_t>::max() - begin) {
    return invalid(op, std::string(name) + " would extend past the end of the address space");
  }
  *range = {name, begin, begin + bytes};
  return Status::success();
}

Status matrix_range(const char* op, const char* name, const void* ptr, std::int64_t rows, std::int64_t cols,
                    std::int64_t ld, std::size_t elem_bytes, ByteRange* range) {
  // (rows − 1)·ld + cols elements: 2^31 · 2^40 bytes at most, which 128 bits hold exactly.
  const unsigned __int128 bytes =
      (static_cast<unsigned __int128>(rows - 1) * static_cast<std::uint64_t>(ld) + static_cast<std::uint64_t>(cols)) *
      elem_bytes;
  if (bytes > std::numeric_limits<std::uint64_t>::max()) {
    return invalid(op, std::string(name) + " would extend past the end of the address space");
  }
  return bytes_range(op, name, ptr, static_cast<std::uint64_t>(bytes), range);
}

bool overlaps(const ByteRange& a, const ByteRange& b) {
  return a.begin < a.end && b.begin < b.end && a.begin < b.end && b.begin < a.end;
}

Status check_disjoint(const char* op, const ByteRanges& outputs, const ByteRanges& inputs) {
  if (outputs.overflowed() || inputs.overflowed()) return Status::internal(std::string(op) + ": too many operand ranges");
  for (const ByteRange* out = outputs.begin(); out != outputs.end(); ++out) {
    for (const ByteRange& in : inputs) {
      if (overlaps(*out, in)) return invalid(op, std::string(out->name) + " overlaps " + in.name);
    }
    for (const ByteRange* other = out + 1; other != outputs.end(); ++other) {
      if (overlaps(*out, *other)) return invalid(op, std::string(out->name) + " overlaps " + other->name);
    }
  }
  return Status::success();
}

}  // namespace epifuse::detail

// The operand rules every entry point checks before launching (gemm, gated_mlp, gate/up
// packing), in one place: TMA's stride and alignment rules computed from the element size, byte
// ranges that cannot overflow, and disjointness of outputs. Messages name the op and the operand.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <optional>
#include <string>

#include "epifuse/status.hpp"
#include "epifuse/types.hpp"

namespace epifuse::detail {

// TMA moves rows in 16-byte units and takes byte strides below 2^40.
constexpr std::size_t kTmaGranuleBytes = 16;
constexpr std::uint64_t kTmaMaxStrideBytes = std::uint64_t{1} << 40;
// Sizes the kernels hold in 32-bit integers.
constexpr std::int64_t kMaxExtent = (std::int64_t{1} << 31) - 1;

// Elements per 16 bytes: the unit a TMA row length and stride must be a multiple of.
constexpr std::int64_t tma_granule_elements(DType t) {
  return static_cast<std::int64_t>(kTmaGranuleBytes / dtype_bytes(t));
}

Status invalid(const char* op, const std::string& message);

// 0 <= value < 2^31.
Status check_extent(const char* op, const char* name, std::int64_t value);

// A row of `extent` elements of `dtype` is a whole number of 16-byte units.
Status check_row_length(const char* op, const char* name, std::int64_t extent, DType dtype);

// ld >= min, a whole number of 16-byte units, below 2^40 bytes.
Status check_leading_dim(const char* op, const char* name, std::int64_t ld, const char* min_name, std::int64_t min,
                         DType dtype);

// Non-null and aligned to `alignment` bytes (16 for TMA operands, 4 for fp32 vectors).
Status check_pointer(const char* op, const char* name, const void* ptr, std::size_t alignment);

// Finite (alpha, beta, slopes, scales).
Status check_finite(const char* op, const char* name, float value);

// Half-open byte range [begin, end) of an operand.
struct ByteRange {
  const char* name = "";
  std::uint64_t begin = 0;
  std::uint64_t end = 0;
};

// A row-major [rows, ld] operand, `cols` used per row, `elem_bytes` each (rows, cols >= 1), or
// an invalid-argument Status when it would extend past the end of the address space. `name`
// must outlive the range (a string literal).
Status matrix_range(const char* op, const char* name, const void* ptr, std::int64_t rows, std::int64_t cols,
                    std::int64_t ld, std::size_t elem_bytes, ByteRange* range);
Status bytes_range(const char* op, const char* name, const void* ptr, std::uint64_t bytes, ByteRange* range);

bool overlaps(const ByteRange& a, const ByteRange& b);

// One call's inputs or outputs, held inline so that validation allocates nothing (it runs on
// every call). Ranges past the capacity are counted, and check_disjoint refuses the call.
class ByteRanges {
 public:
  static constexpr std::size_t kCapacity = 12;  // the most any op names: 7 (gemm's inputs, its outputs)

  ByteRanges() = default;
  ByteRanges(std::initializer_list<ByteRange> ranges) {
    for (const ByteRange& r : ranges) push_back(r);
  }
  void push_back(const ByteRange& r) {
    if (size_ < kCapacity) ranges_[size_] = r;
    ++size_;
  }
  bool overflowed() const { return size_ > kCapacity; }
  const ByteRange* begin() const { return ranges_.data(); }
  const ByteRange* end() const { return ranges_.data() + (overflowed() ? kCapacity : size_); }

 private:
  std::array<ByteRange, kCapacity> ranges_{};
  std::size_t size_ = 0;
};

// No output overlaps an input or another output (empty ranges overlap nothing).
Status check_disjoint(const char* op, const ByteRanges& outputs, const ByteRanges& inputs);

}  // namespace epifuse::detail

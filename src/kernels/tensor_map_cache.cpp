#include "kernels/tensor_map_cache.hpp"

namespace epifuse::detail {

std::optional<TensorMapKey> TensorMapKey::of(CUtensorMapDataType data_type, cuuint32_t rank,
                                             const void* global_address, const cuuint64_t* global_dim,
                                             const cuuint64_t* global_strides, const cuuint32_t* box_dim,
                                             const cuuint32_t* element_strides, CUtensorMapInterleave interleave,
                                             CUtensorMapSwizzle swizzle, CUtensorMapL2promotion l2_promotion,
                                             CUtensorMapFloatOOBfill oob_fill) {
  if (rank == 0 || rank > kMaxRank) return std::nullopt;
  TensorMapKey key;
  auto& w = key.words_;
  w[0] = static_cast<std::uint64_t>(data_type) | static_cast<std::uint64_t>(rank) << 8 |
         static_cast<std::uint64_t>(interleave) << 16 | static_cast<std::uint64_t>(swizzle) << 24 |
         static_cast<std::uint64_t>(l2_promotion) << 32 | static_cast<std::uint64_t>(oob_fill) << 40;
  w[1] = reinterpret_cast<std::uintptr_t>(global_address);
  std::size_t i = 2;
  for (cuuint32_t d = 0; d < kMaxRank; ++d, ++i) w[i] = d < rank ? global_dim[d] : 0;
  for (cuuint32_t d = 0; d + 1 < kMaxRank; ++d, ++i) w[i] = d + 1 < rank ? global_strides[d] : 0;
  for (cuuint32_t d = 0; d < kMaxRank; ++d, ++i) {
    w[i] = d < rank ? static_cast<std::uint64_t>(box_dim[d]) << 32 | element_strides[d] : 0;
  }
  return key;
}

std::size_t TensorMapKey::hash() const {
  // FNV-1a's multiply over whole words, with a shift so that high bits reach the low ones.
  std::uint64_t h = 1469598103934665603ull;
  for (std::uint64_t word : words_) {
    h ^= word;
    h *= 1099511628211ull;
    h ^= h >> 29;
  }
  return static_cast<std::size_t>(h);
}

const CUtensorMap* TensorMapCache::find(const TensorMapKey& key) const {
  const auto it = descriptors_.find(key);
  return it == descriptors_.end() ? nullptr : &it->second;
}

void TensorMapCache::insert(const TensorMapKey& key, const CUtensorMap& descriptor) {
  if (descriptors_.size() >= kCapacity) descriptors_.clear();
  descriptors_.insert_or_assign(key, descriptor);
}

}  // namespace epifuse::detail

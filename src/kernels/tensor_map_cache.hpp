// Encoded TMA descriptors kept by their encode arguments. A descriptor is a pure function of
// cuTensorMapEncodeTiled's arguments, and a model re-encodes the same ones at every layer of every
// step (one per operand, 0.3 us of CPU each on an H200 host); a hit copies 128 bytes instead and
// makes no driver call, so it needs no capture-mode exchange either.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <unordered_map>

#include <cuda.h>

namespace epifuse::detail {

// Every argument of one cuTensorMapEncodeTiled call but its output, packed into words.
class TensorMapKey {
 public:
  static constexpr cuuint32_t kMaxRank = 5;  // CUDA's limit for tiled tensor maps

  // std::nullopt for a rank the driver refuses (it sees the call and says why).
  static std::optional<TensorMapKey> of(CUtensorMapDataType data_type, cuuint32_t rank, const void* global_address,
                                        const cuuint64_t* global_dim, const cuuint64_t* global_strides,
                                        const cuuint32_t* box_dim, const cuuint32_t* element_strides,
                                        CUtensorMapInterleave interleave, CUtensorMapSwizzle swizzle,
                                        CUtensorMapL2promotion l2_promotion, CUtensorMapFloatOOBfill oob_fill);

  bool operator==(const TensorMapKey& other) const { return words_ == other.words_; }
  std::size_t hash() const;

 private:
  // [0] the enums and rank, [1] the address, then dims, the rank - 1 strides, box and element
  // strides (two per word); unused words stay zero.
  std::array<std::uint64_t, 2 + kMaxRank + (kMaxRank - 1) + kMaxRank> words_{};
};

// One thread's descriptors (no lock: CUTLASS encodes on the calling thread). Bounded: a full
// cache is emptied, which costs one encode per descriptor of the calls that follow.
class TensorMapCache {
 public:
  // 80 layers of four GEMMs with three operands each, twice over.
  static constexpr std::size_t kCapacity = 2048;

  const CUtensorMap* find(const TensorMapKey& key) const;
  void insert(const TensorMapKey& key, const CUtensorMap& descriptor);
  std::size_t size() const { return descriptors_.size(); }

 private:
  struct Hash {
    std::size_t operator()(const TensorMapKey& key) const { return key.hash(); }
  };
  std::unordered_map<TensorMapKey, CUtensorMap, Hash> descriptors_;
};

// Whether the library's encodes keep descriptors (the default) or encode every one anew, for
// every thread from its next encode on: the host-cost bench's A/B and the test that both agree
// (defined with the encode, src/kernels/tensor_map_encode.cpp).
void keep_tensor_maps(bool keep);

}  // namespace epifuse::detail

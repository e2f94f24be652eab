// The TMA descriptor cache: a descriptor comes back only for the very arguments that encoded it.
#include <cstring>
#include <optional>
#include <vector>

#include <gtest/gtest.h>

#include "kernels/tensor_map_cache.hpp"

namespace epifuse::detail {
namespace {

// The arguments of one encode, as CUTLASS passes them for a [rows, cols] bf16 operand.
struct EncodeCall {
  CUtensorMapDataType data_type = CU_TENSOR_MAP_DATA_TYPE_BFLOAT16;
  cuuint32_t rank = 3;
  const void* address = reinterpret_cast<const void*>(0x7f0000001000);
  cuuint64_t dims[5] = {4096, 14336, 1, 0, 0};
  cuuint64_t strides[4] = {8192, 117440512, 0, 0};
  cuuint32_t box[5] = {64, 128, 1, 0, 0};
  cuuint32_t element_strides[5] = {1, 1, 1, 0, 0};
  CUtensorMapSwizzle swizzle = CU_TENSOR_MAP_SWIZZLE_128B;
  CUtensorMapL2promotion l2 = CU_TENSOR_MAP_L2_PROMOTION_L2_256B;
  CUtensorMapFloatOOBfill oob = CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE;

  std::optional<TensorMapKey> key() const {
    return TensorMapKey::of(data_type, rank, address, dims, strides, box, element_strides,
                            CU_TENSOR_MAP_INTERLEAVE_NONE, swizzle, l2, oob);
  }
};

CUtensorMap descriptor_filled_with(unsigned char byte) {
  CUtensorMap map;
  std::memset(&map, byte, sizeof map);
  return map;
}

TEST(TensorMapCache, ReturnsTheDescriptorOfTheSameArguments) {
  TensorMapCache cache;
  const EncodeCall call;
  ASSERT_TRUE(call.key());
  EXPECT_EQ(cache.find(*call.key()), nullptr);
  cache.insert(*call.key(), descriptor_filled_with(7));
  const CUtensorMap* kept = cache.find(*call.key());
  ASSERT_NE(kept, nullptr);
  const CUtensorMap expected = descriptor_filled_with(7);
  EXPECT_EQ(std::memcmp(kept, &expected, sizeof expected), 0);
}

TEST(TensorMapCache, EveryArgumentTellsDescriptorsApart) {
  const EncodeCall base;
  std::vector<EncodeCall> variants(11, base);
  variants[0].data_type = CU_TENSOR_MAP_DATA_TYPE_FLOAT16;
  variants[1].rank = 2;
  variants[2].address = reinterpret_cast<const void*>(0x7f0000002000);
  variants[3].dims[0] = 4095;
  variants[4].dims[2] = 2;
  variants[5].strides[0] = 8320;
  variants[6].strides[1] = 1;
  variants[7].box[1] = 64;
  variants[8].element_strides[2] = 2;
  variants[9].swizzle = CU_TENSOR_MAP_SWIZZLE_64B;
  variants[10].oob = CU_TENSOR_MAP_FLOAT_OOB_FILL_NAN_REQUEST_ZERO_FMA;
  TensorMapCache cache;
  cache.insert(*base.key(), descriptor_filled_with(1));
  for (std::size_t i = 0; i < variants.size(); ++i) {
    ASSERT_TRUE(variants[i].key()) << "variant " << i;
    EXPECT_FALSE(*variants[i].key() == *base.key()) << "variant " << i;
    EXPECT_EQ(cache.find(*variants[i].key()), nullptr) << "variant " << i;
  }
  // Past the rank, the arrays' entries are not arguments.
  EncodeCall beyond_rank = base;
  beyond_rank.dims[4] = 99;
  beyond_rank.box[3] = 99;
  EXPECT_TRUE(*beyond_rank.key() == *base.key());
}

TEST(TensorMapCache, RanksTheDriverRefusesAreNotKept) {
  EncodeCall call;
  call.rank = 0;
  EXPECT_FALSE(call.key());
  call.rank = 6;
  EXPECT_FALSE(call.key());
  call.rank = 5;
  EXPECT_TRUE(call.key());
}

TEST(TensorMapCache, AFullCacheStartsOver) {
  TensorMapCache cache;
  EncodeCall call;
  for (std::size_t i = 0; i < TensorMapCache::kCapacity; ++i) {
    call.address = reinterpret_cast<const void*>(0x10000 + 256 * i);
    cache.insert(*call.key(), descriptor_filled_with(static_cast<unsigned char>(i)));
  }
  EXPECT_EQ(cache.size(), TensorMapCache::kCapacity);
  EncodeCall first = call;
  first.address = reinterpret_cast<const void*>(0x10000);
  EXPECT_NE(cache.find(*first.key()), nullptr);
  call.address = reinterpret_cast<const void*>(0x20000000);
  cache.insert(*call.key(), descriptor_filled_with(9));
  EXPECT_EQ(cache.size(), 1u);
  EXPECT_EQ(cache.find(*first.key()), nullptr);
  EXPECT_NE(cache.find(*call.key()), nullptr);
}

}  // namespace
}  // namespace epifuse::detail

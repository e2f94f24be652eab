// The MoE permute (src/moe/routing.hpp) on both of its sorts, against a stable sort on the host:
// one block up to kOneBlockSortPairs pairs, cub's device sort beyond. The sorted pairs (stable:
// within an expert, pair order), the offsets, the dropped count, each pair's row, and the gathered
// rows of x must all be exact.
#include <algorithm>
#include <cstdint>
#include <cstring>
#include <numeric>
#include <random>
#include <string>
#include <vector>

#include "moe/routing.hpp"
#include "tests/gpu/gpu_test.hpp"

namespace epifuse::testing {
namespace {

struct RoutingCase {
  std::int64_t tokens, topk, experts;
  int bad_per_mille;  // ids drawn outside [0, E) (dropped pairs), per thousand
  std::string name() const {
    return "T" + std::to_string(tokens) + "_k" + std::to_string(topk) + "_E" + std::to_string(experts) + "_bad" +
           std::to_string(bad_per_mille);
  }
};

std::vector<std::int32_t> download_ints(const DeviceBuffer& buffer, std::size_t count) {
  const std::vector<std::uint8_t> bytes = buffer.download();
  std::vector<std::int32_t> out(count);
  std::memcpy(out.data(), bytes.data(), count * sizeof(std::int32_t));
  return out;
}

class MoeRoutingTest : public ::testing::TestWithParam<RoutingCase> {
 protected:
  void SetUp() override { EPIFUSE_REQUIRE_HOPPER(); }
};

TEST_P(MoeRoutingTest, BothSortsMatchAStableHostSort) {
  const RoutingCase& c = GetParam();
  constexpr std::int64_t kK = 64;  // bf16: 8 chunks of 16 bytes per row
  const std::int64_t pairs = c.tokens * c.topk;
  std::mt19937_64 rng(case_seed(c.name()));
  std::uniform_int_distribution<std::int32_t> expert(0, static_cast<std::int32_t>(c.experts) - 1), bad(0, 2);
  std::uniform_int_distribution<int> per_mille(0, 999);
  std::vector<std::int32_t> ids(static_cast<std::size_t>(pairs));
  for (std::int32_t& id : ids) {
    const std::int32_t outside[3] = {-1, static_cast<std::int32_t>(c.experts), 1 << 30};
    id = per_mille(rng) < c.bad_per_mille ? outside[bad(rng)] : expert(rng);
  }
  std::vector<std::uint16_t> x(static_cast<std::size_t>(c.tokens * kK));
  std::uniform_int_distribution<int> bits16(0, 0xffff);
  for (std::uint16_t& v : x) v = static_cast<std::uint16_t>(bits16(rng));  // any bits: the gather copies them

  // The host's answer: a stable sort of the pairs by key (E for an id outside [0, E)).
  std::vector<std::int32_t> key(ids.size()), order(ids.size());
  for (std::size_t i = 0; i < ids.size(); ++i) key[i] = ids[i] >= 0 && ids[i] < c.experts ? ids[i] : c.experts;
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(), [&](std::int32_t a, std::int32_t b) { return key[a] < key[b]; });
  std::vector<std::int32_t> offsets(static_cast<std::size_t>(c.experts) + 1), rows(ids.size(), -1);
  const auto key_below = [&](std::int32_t p, std::int64_t e) { return key[p] < e; };
  for (std::int64_t e = 0; e <= c.experts; ++e) {
    offsets[e] = static_cast<std::int32_t>(std::lower_bound(order.begin(), order.end(), e, key_below) - order.begin());
  }
  for (std::int32_t r = 0; r < offsets[c.experts]; ++r) rows[order[r]] = r;
  const std::int32_t dropped = static_cast<std::int32_t>(pairs) - offsets[c.experts];

  std::size_t temp_bytes = 0;
  ASSERT_TRUE(detail::moe_sort_temp_bytes(pairs, c.experts, &temp_bytes).ok());
  EXPECT_EQ(temp_bytes == 0, detail::sorts_in_one_block(pairs, c.experts));
  const std::size_t pair_bytes = static_cast<std::size_t>(pairs) * 4;
  DeviceBuffer ids_buf(pair_bytes), keys(pair_bytes), sorted_keys(pair_bytes), pair_index(pair_bytes),
      sorted_pairs(pair_bytes), temp(std::max<std::size_t>(temp_bytes, 1)), offsets_buf(offsets.size() * 4),
      rows_buf(pair_bytes), x_buf(x.size() * 2), x_sorted(static_cast<std::size_t>(pairs * kK) * 2), dropped_buf(4);
  ids_buf.upload(ids.data(), pair_bytes);
  x_buf.upload(x.data(), x.size() * 2);
  for (DeviceBuffer* b : {&sorted_keys, &sorted_pairs, &offsets_buf, &rows_buf, &x_sorted, &dropped_buf}) b->poison();
  detail::MoeRouting r;
  r.keys = keys.as<std::int32_t>();
  r.sorted_keys = sorted_keys.as<std::int32_t>();
  r.pairs = pair_index.as<std::int32_t>();
  r.sorted_pairs = sorted_pairs.as<std::int32_t>();
  r.sort_temp = temp.data();
  r.sort_temp_bytes = temp_bytes;
  r.offsets = offsets_buf.as<std::int32_t>();
  r.rows = rows_buf.as<std::int32_t>();
  const Status s = detail::moe_permute(r, ids_buf.as<std::int32_t>(), c.tokens, c.topk, c.experts, x_buf.data(), kK,
                                       kK, DType::kBF16, x_sorted.data(), dropped_buf.as<std::int32_t>(), nullptr);
  ASSERT_TRUE(s.ok()) << s.to_string();
  EPIFUSE_CHECK_CUDA(cudaDeviceSynchronize());

  EXPECT_EQ(download_ints(sorted_pairs, order.size()), order) << "the pairs in expert order, stable";
  EXPECT_EQ(download_ints(offsets_buf, offsets.size()), offsets);
  EXPECT_EQ(download_ints(rows_buf, rows.size()), rows);
  EXPECT_EQ(download_ints(dropped_buf, 1)[0], dropped);
  const std::vector<std::uint8_t> gathered = x_sorted.download();
  for (std::int32_t row = 0; row < offsets[c.experts]; ++row) {
    const std::int64_t token = order[row] / c.topk;
    ASSERT_EQ(std::memcmp(gathered.data() + row * kK * 2, x.data() + token * kK, kK * 2), 0) << "row " << row;
  }
  for (const DeviceBuffer* b : {&sorted_pairs, &offsets_buf, &rows_buf, &x_sorted}) EXPECT_TRUE(b->guard_intact());
}

// One block's limit and one past it, each with dropped ids; E = 7, where the slots past the last
// pair carry the same key as a dropped pair (3 bits hold 0..7); every pair on one expert; one pair.
INSTANTIATE_TEST_SUITE_P(Sorts, MoeRoutingTest,
                         ::testing::Values(RoutingCase{256, 8, 256, 30}, RoutingCase{2049, 1, 256, 30},
                                           RoutingCase{333, 3, 7, 100}, RoutingCase{700, 3, 7, 100},
                                           RoutingCase{1000, 2, 1, 0}, RoutingCase{1, 1, 64, 0},
                                           RoutingCase{4096, 8, 64, 5}),
                         param_name<RoutingCase>);

}  // namespace
}  // namespace epifuse::testing

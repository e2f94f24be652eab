#include "api/call_key.hpp"

#include <cstring>
#include <initializer_list>
#include <optional>
#include <type_traits>

namespace epifuse::detail {

// CallKey::of and add(KernelChoice) take their structs apart with structured bindings, which name
// every field: a field added to one of them fails to compile here until the key takes it.
class CallKeyWriter {
 public:
  explicit CallKeyWriter(CallKey* key) : words_(key->words_) {}

  void add(std::uint64_t word) { words_.at(next_++) = word; }
  void add(std::int64_t value) { add(static_cast<std::uint64_t>(value)); }
  void add(const void* pointer) { add(static_cast<std::uint64_t>(reinterpret_cast<std::uintptr_t>(pointer))); }
  void add(float value) {
    std::uint32_t bits = 0;
    std::memcpy(&bits, &value, sizeof bits);
    add(static_cast<std::uint64_t>(bits));
  }
  template <class Enum, std::enable_if_t<std::is_enum_v<Enum>, int> = 0>
  void add(Enum value) {
    add(static_cast<std::uint64_t>(value));
  }

  void add(const std::optional<KernelChoice>& choice) {
    add(std::uint64_t{choice.has_value()});
    if (!choice) return;
    const auto& [key, raster, swizzle, splits, stream_k] = *choice;
    const auto& [op, arch, a, b, d, schedule, tile, cluster, swap_ab, epilogue, has_c, grouping, decomposition] = key;
    const auto& [tile_m, tile_n, tile_k] = tile;
    const auto& [cluster_m, cluster_n] = cluster;
    for (const int field : {int(op), int(arch), int(a), int(b), int(d), int(schedule), tile_m, tile_n, tile_k,
                            cluster_m, cluster_n, int(swap_ab), int(epilogue), int(has_c), int(grouping),
                            int(decomposition), int(raster), swizzle, splits, int(stream_k)}) {
      add(static_cast<std::int64_t>(field));
    }
  }

 private:
  std::array<std::uint64_t, CallKey::kWords>& words_;
  std::size_t next_ = 0;
};

CallKey CallKey::of(const GatedMlpArgs& args, bool delegated_tuning) {
  const auto& [M, N, x_dtype, x, ldx, w, out_dtype, out, ldo, activation, limit, scale, workspace, workspace_bytes,
               kernel] = args;
  const auto& [weight, ld, bias, weight_N, weight_K, weight_dtype, layout] = w;
  CallKey key;
  CallKeyWriter writer(&key);
  writer.add(std::uint64_t{1} << 1 | std::uint64_t{delegated_tuning});  // the op, then the switch
  for (const std::int64_t v : {M, N, ldx, ld, weight_N, weight_K, ldo}) writer.add(v);
  for (const void* p : {x, weight, static_cast<const void*>(bias), static_cast<const void*>(out),
                        static_cast<const void*>(workspace)}) {
    writer.add(p);
  }
  writer.add(x_dtype);
  writer.add(weight_dtype);
  writer.add(layout);
  writer.add(out_dtype);
  writer.add(activation);
  writer.add(limit);
  writer.add(scale);
  writer.add(static_cast<std::uint64_t>(workspace_bytes));
  writer.add(kernel);
  key.hash_words();
  return key;
}

CallKey CallKey::of(const GemmArgs& args, bool delegated_tuning) {
  const auto& [M, N, K, a_dtype, b_dtype, d_dtype, A, lda, B, ldb, D, ldd, a_scale, b_scale, epilogue, workspace,
               workspace_bytes, kernel] = args;
  const auto& [alpha, row_scale, col_scale, col_bias, col_bias_dtype, row_bias, activation, leaky_slope, clamp_lo,
               clamp_hi, residual, ldc, beta, residual_order, row_sum, row_amax, col_sum, col_amax, amax] = epilogue;
  CallKey key;
  CallKeyWriter writer(&key);
  writer.add(std::uint64_t{2} << 1 | std::uint64_t{delegated_tuning});
  for (const std::int64_t v : {M, N, K, lda, ldb, ldd, ldc}) writer.add(v);
  for (const void* p : {A, B, static_cast<const void*>(D), static_cast<const void*>(a_scale),
                        static_cast<const void*>(b_scale), static_cast<const void*>(row_scale),
                        static_cast<const void*>(col_scale), col_bias, static_cast<const void*>(row_bias), residual,
                        static_cast<const void*>(row_sum), static_cast<const void*>(row_amax),
                        static_cast<const void*>(col_sum), static_cast<const void*>(col_amax),
                        static_cast<const void*>(amax), static_cast<const void*>(workspace)}) {
    writer.add(p);
  }
  for (const DType t : {a_dtype, b_dtype, d_dtype, col_bias_dtype}) writer.add(t);
  writer.add(activation);
  writer.add(residual_order);
  for (const float f : {alpha, leaky_slope, clamp_lo, clamp_hi, beta}) writer.add(f);
  writer.add(static_cast<std::uint64_t>(workspace_bytes));
  writer.add(kernel);
  key.hash_words();
  return key;
}

void CallKey::hash_words() {
  // FNV-1a's multiply over whole words, with a shift so that high bits reach the low ones.
  std::uint64_t h = 1469598103934665603ull;
  for (std::uint64_t word : words_) {
    h ^= word;
    h *= 1099511628211ull;
    h ^= h >> 29;
  }
  hash_ = static_cast<std::size_t>(h);
}

}  // namespace epifuse::detail

// What an entry point's choice, plan and launch parameters depend on besides the device and a
// gated call's timed way (api/kept_launches.hpp says how that is kept apart): each field of the
// call's args (pointers, shapes, strides, types, epilogue, workspace, a forced kernel), the op,
// and whether delegated tuning is on (it decides which ways a gated call may run).
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>

#include "epifuse/gated_mlp.hpp"
#include "epifuse/gemm.hpp"

namespace epifuse::detail {

class CallKey {
 public:
  static CallKey of(const GatedMlpArgs& args, bool delegated_tuning);
  static CallKey of(const GemmArgs& args, bool delegated_tuning);

  bool operator==(const CallKey& other) const { return words_ == other.words_; }
  std::size_t hash() const { return hash_; }
  bool delegated_tuning() const { return (words_[0] & 1) != 0; }

  // Enough for the GEMM's 57 words; unused words stay zero.
  static constexpr std::size_t kWords = 64;

 private:
  friend class CallKeyWriter;
  void hash_words();  // once the words are written

  std::array<std::uint64_t, kWords> words_{};
  std::size_t hash_ = 0;
};

}  // namespace epifuse::detail

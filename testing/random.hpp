// Reproducible random inputs, drawn on the device (fast for the multi-GB operands of large
// shapes) from a counter-based hash: the same seed gives the same tensor on any GPU.
#pragma once

#include <cstdint>

#include <cuda_runtime_api.h>

#include "epifuse/types.hpp"

namespace epifuse::testing {

// The run's seed: $EPIFUSE_SEED when set, else fresh entropy. Logged once to stderr.
std::uint64_t run_seed();

// Deterministic sub-seed for one tensor of one case.
std::uint64_t derive_seed(std::uint64_t seed, std::uint64_t stream);

// data[r * ld + c] ~ U(lo, hi) rounded to `dtype`, for r < rows, c < cols; padding untouched.
void fill_uniform(void* data, DType dtype, std::int64_t rows, std::int64_t cols, std::int64_t ld,
                  std::uint64_t seed, float lo, float hi, cudaStream_t stream = nullptr);

}  // namespace epifuse::testing

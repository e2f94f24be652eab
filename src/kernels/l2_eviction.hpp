// Evicts the L2 cache by reading a buffer larger than it, so that a timed kernel after it reads
// its operands from device memory, as a model's layer reads its weights, and not from L2, where a
// candidate timed on the same operands run after run would find them. Reading, not writing, leaves
// clean lines: the timed kernel pays no write-backs.
#pragma once

#include <cstddef>

#include <cuda_runtime_api.h>

namespace epifuse::detail {

// Reads `bytes` (a multiple of 16) of `buffer` (16-byte aligned, zeroed; never written) on
// `stream`. False where the launch fails.
bool evict_l2(void* buffer, std::size_t bytes, cudaStream_t stream);

// How many bytes evict_l2 reads to clear the current device's L2: twice its size (0 where the
// size is unknown).
std::size_t l2_eviction_bytes();

}  // namespace epifuse::detail

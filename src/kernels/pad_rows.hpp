// A zero-padded copy of a row-major operand, for kernels whose TMA loads must not run past its
// last row: on an H200 a [128, 64] bf16 box with rows out of bounds loads 1.2-5.0x slower than
// one inside (bench/probes/tma_oob_probe.cu; bench/results/tuning/issue9/tma-oob-probe.log).
#pragma once

#include <cstdint>

#include <cuda_runtime_api.h>

#include "epifuse/status.hpp"

namespace epifuse::detail {

// dst[r] = src[r] for r < rows, zeros for rows <= r < padded_rows. Rows are row_bytes long (a
// multiple of 16); src rows start src_ld_bytes apart, dst rows row_bytes apart; both 16-byte aligned.
Status pad_rows(const void* src, std::int64_t src_ld_bytes, std::int64_t rows, std::int64_t row_bytes,
                std::int64_t padded_rows, void* dst, cudaStream_t stream);

}  // namespace epifuse::detail

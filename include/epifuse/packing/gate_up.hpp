// Packing the gate and up weights of a gated MLP for epifuse::gated_mlp (gated_mlp.hpp).
//
// Layout kGateUpBlocks8 (version 1), the postcondition of every pack function:
//   packed weight [2N, K] row-major, row stride K:
//     packed row 16·b + i      = gate row 8·b + i     (0 ≤ i < 8, 0 ≤ b < N/8)
//     packed row 16·b + 8 + i  = up   row 8·b + i
//   packed bias [2N] fp32 (when biases are given): the same interleave.
// Why blocks of 8: a Hopper wgmma accumulator gives each thread the values 8 apart along the
// weight's dimension (columns 2q, 2q+1 and 8+2q, 8+2q+1 of every 16), so every gate value and its
// up value meet in one thread's registers, in the plain and in the swapped (small-M) kernel alike.
// A kernel checks the tag and refuses a weight packed for another layout.
#pragma once

#include <cstdint>

#include <cuda_runtime_api.h>

#include "epifuse/status.hpp"
#include "epifuse/types.hpp"

namespace epifuse {

// Layout tags: a magic prefix, the layout and its version; a kernel accepts only the tags it reads.
enum class GateUpLayout : std::uint32_t {
  kUnpacked = 0,
  kGateUpBlocks8 = 0xEF0B0801u,  // blocks of 8 rows, version 1
};

// A packed gate/up weight as gated_mlp reads it (pointers to device memory).
struct PackedGateUp {
  const void* weight = nullptr;  // [2N, K], row stride ld (= K as packed)
  std::int64_t ld = 0;
  const float* bias = nullptr;   // optional [2N] fp32, interleaved like the weight
  std::int64_t N = 0, K = 0;     // N: output width (gate rows); K: input width
  DType dtype = DType::kBF16;    // bf16 or fp16
  GateUpLayout layout = GateUpLayout::kUnpacked;
};

// The unpacked weights: gate and up [N, K] each with row stride ld (elements), optional fp32
// biases [N] each (both or neither).
struct GateUpSource {
  const void* gate = nullptr;
  const void* up = nullptr;
  std::int64_t ld = 0;
  const float* gate_bias = nullptr;
  const float* up_bias = nullptr;
  std::int64_t N = 0, K = 0;
  DType dtype = DType::kBF16;
};

// Checkpoints that fuse the two into one [2N, K] tensor order them differently.
enum class FusedGateUpOrder { kGateThenUp, kUpThenGate };

// Views a fused [2N, ld] tensor (and optional fused [2N] fp32 bias) as a GateUpSource.
// `fused` is a host or device pointer; the view points into it.
GateUpSource gate_up_from_fused(const void* fused, const float* fused_bias, std::int64_t N, std::int64_t K,
                                std::int64_t ld, DType dtype, FusedGateUpOrder order);

// Rules (kInvalidArgument otherwise, nothing written): N, K > 0 and multiples of 8, 2N < 2^31;
// ld ≥ K; bf16 or fp16; gate, up and the destinations non-null; no destination overlaps a source
// or another destination; biases both or neither (and packed_bias non-null with them), 4-byte
// aligned. The device versions also need 16-byte aligned weights and ld a multiple of 16 bytes.

// Host memory in and out. packed_weight holds 2·N·K elements; packed_bias 2·N floats.
Status pack_gate_up_host(const GateUpSource& src, void* packed_weight, float* packed_bias, PackedGateUp* packed);

// Device memory in and out, ordered on `stream`.
Status pack_gate_up(const GateUpSource& src, void* packed_weight, float* packed_bias, PackedGateUp* packed,
                    cudaStream_t stream);

// The inverse: gate and up [N, K] (row stride K) and, when the packed weight has one, biases [N].
Status unpack_gate_up_host(const PackedGateUp& packed, void* gate, void* up, float* gate_bias, float* up_bias);
Status unpack_gate_up(const PackedGateUp& packed, void* gate, void* up, float* gate_bias, float* up_bias,
                      cudaStream_t stream);

// Packed row of gate row n (is_up false) or up row n (is_up true); the layout in one line.
constexpr std::int64_t packed_gate_up_row(std::int64_t n, bool is_up) {
  return (n / 8) * 16 + (is_up ? 8 : 0) + n % 8;
}

}  // namespace epifuse

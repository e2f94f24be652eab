// Device pack/unpack of the kGateUpBlocks8 layout: one CTA per packed row, 16-byte copies.
#include <cstdint>
#include <string>

#include "dispatch/device_caps.hpp"
#include "epifuse/packing/gate_up.hpp"
#include "packing/packed_description.hpp"
#include "validate/gate_up.hpp"

namespace epifuse {
namespace {

// kPack: packed[row] <- gate/up source row; otherwise the reverse. Rows are K elements, K % 8 == 0.
template <bool kPack>
__global__ void copy_gate_up_rows(const uint4* gate, uint4* gate_out, const uint4* up, uint4* up_out,
                                  std::int64_t src_stride_vec, uint4* packed, const uint4* packed_in,
                                  std::int64_t row_vecs, const float* bias_gate, const float* bias_up,
                                  float* packed_bias, const float* packed_bias_in, float* gate_bias_out,
                                  float* up_bias_out) {
  const std::int64_t packed_row = blockIdx.x;
  const bool is_up = (packed_row % 16) >= 8;
  const std::int64_t n = (packed_row / 16) * 8 + packed_row % 8;
  if constexpr (kPack) {
    const uint4* from = (is_up ? up : gate) + n * src_stride_vec;
    uint4* to = packed + packed_row * row_vecs;
    for (std::int64_t i = threadIdx.x; i < row_vecs; i += blockDim.x) to[i] = from[i];
    if (threadIdx.x == 0 && packed_bias != nullptr) packed_bias[packed_row] = (is_up ? bias_up : bias_gate)[n];
  } else {
    const uint4* from = packed_in + packed_row * row_vecs;
    uint4* to = (is_up ? up_out : gate_out) + n * row_vecs;
    for (std::int64_t i = threadIdx.x; i < row_vecs; i += blockDim.x) to[i] = from[i];
    if (threadIdx.x == 0 && packed_bias_in != nullptr) (is_up ? up_bias_out : gate_bias_out)[n] = packed_bias_in[packed_row];
  }
}

constexpr int kThreads = 128;

Status launched(const char* what) {
  const cudaError_t err = cudaGetLastError();
  if (err == cudaSuccess) return Status::success();
  return Status::cuda_error(std::string(what) + ": kernel launch: " + cudaGetErrorName(err) + " (" +
                            cudaGetErrorString(err) + ")");
}

}  // namespace

Status pack_gate_up(const GateUpSource& src, void* packed_weight, float* packed_bias, PackedGateUp* packed,
                    cudaStream_t stream) {
  if (Status s = detail::check_pack_args(src, packed_weight, packed_bias, packed, /*device=*/true); !s.ok()) return s;
  const detail::DeviceCaps* caps = nullptr;
  if (Status s = detail::stream_device_caps(stream, &caps); !s.ok()) return s;
  const std::int64_t vec_elems = 16 / static_cast<std::int64_t>(dtype_bytes(src.dtype));
  copy_gate_up_rows<true><<<static_cast<unsigned>(2 * src.N), kThreads, 0, stream>>>(
      static_cast<const uint4*>(src.gate), nullptr, static_cast<const uint4*>(src.up), nullptr, src.ld / vec_elems,
      static_cast<uint4*>(packed_weight), nullptr, src.K / vec_elems, src.gate_bias, src.up_bias,
      src.gate_bias != nullptr ? packed_bias : nullptr, nullptr, nullptr, nullptr);
  if (Status s = launched("pack_gate_up"); !s.ok()) return s;
  *packed = detail::packed_description(src, packed_weight, packed_bias);
  return Status::success();
}

Status unpack_gate_up(const PackedGateUp& packed, void* gate, void* up, float* gate_bias, float* up_bias,
                      cudaStream_t stream) {
  if (Status s = detail::check_unpack_args(packed, gate, up, gate_bias, up_bias, /*device=*/true); !s.ok()) return s;
  const detail::DeviceCaps* caps = nullptr;
  if (Status s = detail::stream_device_caps(stream, &caps); !s.ok()) return s;
  const std::int64_t vec_elems = 16 / static_cast<std::int64_t>(dtype_bytes(packed.dtype));
  copy_gate_up_rows<false><<<static_cast<unsigned>(2 * packed.N), kThreads, 0, stream>>>(
      nullptr, static_cast<uint4*>(gate), nullptr, static_cast<uint4*>(up), 0, nullptr,
      static_cast<const uint4*>(packed.weight), packed.K / vec_elems, nullptr, nullptr, nullptr, packed.bias,
      gate_bias, up_bias);
  return launched("unpack_gate_up");
}

}  // namespace epifuse

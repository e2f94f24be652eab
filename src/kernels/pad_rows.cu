// One 16-byte vector per thread and step, grid-stride over the padded rows.
#include "kernels/pad_rows.hpp"

#include <algorithm>
#include <string>

namespace epifuse::detail {
namespace {

__global__ void copy_padded(const uint4* src, std::int64_t src_ld_vecs, std::int64_t rows, std::int64_t row_vecs,
                            std::int64_t total_vecs, uint4* dst) {
  for (std::int64_t i = blockIdx.x * static_cast<std::int64_t>(blockDim.x) + threadIdx.x; i < total_vecs;
       i += static_cast<std::int64_t>(gridDim.x) * blockDim.x) {
    const std::int64_t row = i / row_vecs;
    dst[i] = row < rows ? src[row * src_ld_vecs + i % row_vecs] : make_uint4(0, 0, 0, 0);
  }
}

constexpr int kThreads = 256;
constexpr std::int64_t kMaxBlocks = 2048;

}  // namespace

Status pad_rows(const void* src, std::int64_t src_ld_bytes, std::int64_t rows, std::int64_t row_bytes,
                std::int64_t padded_rows, void* dst, cudaStream_t stream) {
  const std::int64_t row_vecs = row_bytes / 16;
  const std::int64_t total_vecs = padded_rows * row_vecs;
  if (total_vecs == 0) return Status::success();
  const std::int64_t blocks = std::min((total_vecs + kThreads - 1) / kThreads, kMaxBlocks);
  copy_padded<<<static_cast<unsigned>(blocks), kThreads, 0, stream>>>(
      static_cast<const uint4*>(src), src_ld_bytes / 16, rows, row_vecs, total_vecs, static_cast<uint4*>(dst));
  if (const cudaError_t err = cudaGetLastError(); err != cudaSuccess) {
    return Status::cuda_error(std::string("padding x into the workspace: kernel launch: ") + cudaGetErrorName(err) +
                              " (" + cudaGetErrorString(err) + ")");
  }
  return Status::success();
}

}  // namespace epifuse::detail

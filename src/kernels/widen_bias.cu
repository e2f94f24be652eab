// One element per thread and step, grid-stride: a bias is a few thousand elements.
#include "kernels/widen_bias.hpp"

#include <algorithm>
#include <string>

#include <cuda_bf16.h>
#include <cuda_fp16.h>

namespace epifuse::detail {
namespace {

template <class T>
__global__ void widen(const T* src, std::int64_t length, float* dst) {
  for (std::int64_t i = blockIdx.x * static_cast<std::int64_t>(blockDim.x) + threadIdx.x; i < length;
       i += static_cast<std::int64_t>(gridDim.x) * blockDim.x) {
    dst[i] = static_cast<float>(src[i]);
  }
}

constexpr int kThreads = 256;
constexpr std::int64_t kMaxBlocks = 1024;

}  // namespace

Status widen_bias(const void* src, DType type, std::int64_t length, float* dst, cudaStream_t stream) {
  if (length == 0) return Status::success();
  const auto blocks = static_cast<unsigned>(std::min((length + kThreads - 1) / kThreads, kMaxBlocks));
  if (type == DType::kBF16) {
    widen<<<blocks, kThreads, 0, stream>>>(static_cast<const __nv_bfloat16*>(src), length, dst);
  } else if (type == DType::kFP16) {
    widen<<<blocks, kThreads, 0, stream>>>(static_cast<const __half*>(src), length, dst);
  } else {
    return Status::internal(std::string("widening the column bias: no kernel for ") + to_string(type));
  }
  if (const cudaError_t err = cudaGetLastError(); err != cudaSuccess) {
    return Status::cuda_error(std::string("widening the column bias into the workspace: kernel launch: ") +
                              cudaGetErrorName(err) + " (" + cudaGetErrorString(err) + ")");
  }
  return Status::success();
}

}  // namespace epifuse::detail

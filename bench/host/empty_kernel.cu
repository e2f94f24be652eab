#include "bench/host/empty_kernel.hpp"

namespace epifuse::bench {
namespace {

__global__ void empty_kernel() {}

// About as many parameter bytes as a CUTLASS GEMM's (three TMA descriptors and the rest).
struct LargeParams {
  unsigned char bytes[kLargeParamBytes];
};

__global__ void empty_kernel_with_params(const __grid_constant__ LargeParams) {}

__global__ void empty_kernel_with_shared_memory() {
  extern __shared__ unsigned char shared[];
  (void)shared;
}

__global__ void empty_kernel_with_params_and_shared_memory(const __grid_constant__ LargeParams) {
  extern __shared__ unsigned char shared[];
  (void)shared;
}

}  // namespace

cudaError_t launch_empty_kernel(cudaStream_t stream) {
  empty_kernel<<<1, 32, 0, stream>>>();
  return cudaGetLastError();
}

cudaError_t launch_empty_kernel_ex(cudaStream_t stream, unsigned cluster_n) {
  cudaLaunchAttribute cluster{};
  cluster.id = cudaLaunchAttributeClusterDimension;
  cluster.val.clusterDim.x = 1;
  cluster.val.clusterDim.y = cluster_n;
  cluster.val.clusterDim.z = 1;
  cudaLaunchConfig_t config{};
  config.gridDim = dim3(1, cluster_n, 1);
  config.blockDim = dim3(32, 1, 1);
  config.stream = stream;
  if (cluster_n > 1) {
    config.attrs = &cluster;
    config.numAttrs = 1;
  }
  return cudaLaunchKernelEx(&config, empty_kernel);
}

cudaError_t launch_empty_kernel_with_params(cudaStream_t stream) {
  const LargeParams params{};
  empty_kernel_with_params<<<1, 32, 0, stream>>>(params);
  return cudaGetLastError();
}

cudaError_t launch_empty_kernel_with_shared_memory(cudaStream_t stream) {
  static const cudaError_t allowed = cudaFuncSetAttribute(
      empty_kernel_with_shared_memory, cudaFuncAttributeMaxDynamicSharedMemorySize, kLargeSharedBytes);
  if (allowed != cudaSuccess) return allowed;
  empty_kernel_with_shared_memory<<<1, 384, kLargeSharedBytes, stream>>>();
  return cudaGetLastError();
}

cudaError_t launch_empty_kernel_like_cutlass(cudaStream_t stream, unsigned blocks) {
  static const cudaError_t allowed = cudaFuncSetAttribute(
      empty_kernel_with_params_and_shared_memory, cudaFuncAttributeMaxDynamicSharedMemorySize, kLargeSharedBytes);
  if (allowed != cudaSuccess) return allowed;
  const LargeParams params{};
  empty_kernel_with_params_and_shared_memory<<<blocks, 384, kLargeSharedBytes, stream>>>(params);
  return cudaGetLastError();
}

}  // namespace epifuse::bench

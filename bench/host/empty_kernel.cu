#include "bench/host/empty_kernel.hpp"

namespace epifuse::bench {
namespace {

__global__ void empty_kernel() {}

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

}  // namespace epifuse::bench

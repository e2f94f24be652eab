#include "kernels/graph_conditions.hpp"

namespace epifuse::detail {

cudaError_t capture_conditions(cudaStream_t stream, int launches, GroupConditions* conditions) {
  cudaStreamCaptureStatus status = cudaStreamCaptureStatusNone;
  cudaGraph_t graph = nullptr;
  if (cudaError_t err = cudaStreamGetCaptureInfo(stream, &status, nullptr, &graph); err != cudaSuccess) return err;
  if (status != cudaStreamCaptureStatusActive) return cudaSuccess;
  for (int t = 0; t < launches; ++t) {
    cudaError_t err = cudaGraphConditionalHandleCreate(&conditions->handle[t], graph, 0, cudaGraphCondAssignDefault);
    if (err != cudaSuccess) return err;
  }
  conditions->on = true;
  return cudaSuccess;
}

cudaError_t add_if_node(cudaGraphConditionalHandle condition, const cudaLaunchConfig_t& config, const void* kernel,
                        void** arguments) {
  cudaStreamCaptureStatus status = cudaStreamCaptureStatusNone;
  cudaGraph_t graph = nullptr;
  const cudaGraphNode_t* after = nullptr;
  const cudaGraphEdgeData* edges = nullptr;
  std::size_t count = 0;
  if (cudaError_t err = cudaStreamGetCaptureInfo(config.stream, &status, nullptr, &graph, &after, &edges, &count);
      err != cudaSuccess) {
    return err;
  }
  if (status != cudaStreamCaptureStatusActive) return cudaErrorStreamCaptureInvalidated;
  cudaGraphNodeParams if_node{};
  if_node.type = cudaGraphNodeTypeConditional;
  if_node.conditional.handle = condition;
  if_node.conditional.type = cudaGraphCondTypeIf;
  if_node.conditional.size = 1;
  cudaGraphNode_t node = nullptr;
  if (cudaError_t err = cudaGraphAddNode(&node, graph, after, edges, count, &if_node); err != cudaSuccess) return err;
  cudaGraphNodeParams body{};
  body.type = cudaGraphNodeTypeKernel;
  body.kernel.func = const_cast<void*>(kernel);
  body.kernel.gridDim = config.gridDim;
  body.kernel.blockDim = config.blockDim;
  body.kernel.sharedMemBytes = static_cast<unsigned int>(config.dynamicSmemBytes);
  body.kernel.kernelParams = arguments;
  cudaGraphNode_t launch = nullptr;
  if (cudaError_t err = cudaGraphAddNode(&launch, if_node.conditional.phGraph_out[0], nullptr, nullptr, 0, &body);
      err != cudaSuccess) {
    return err;
  }
  for (unsigned int i = 0; i < config.numAttrs; ++i) {
    cudaError_t err = cudaGraphKernelNodeSetAttribute(launch, config.attrs[i].id, &config.attrs[i].val);
    if (err != cudaSuccess) return err;
  }
  return cudaStreamUpdateCaptureDependencies(config.stream, &node, nullptr, 1, cudaStreamSetCaptureDependencies);
}

}  // namespace epifuse::detail

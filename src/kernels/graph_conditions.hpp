// A grouped call's launches as conditional nodes under CUDA-graph capture (GroupConditions,
// launch_plan.hpp): the handles the call creates in the graph its stream captures, and a launch
// added as the body of an IF node on one of them.
#pragma once

#include <cuda_runtime_api.h>

#include "epifuse/detail/launch_plan.hpp"

namespace epifuse::detail {

// Where `stream` is capturing: a handle per launch in the graph it captures, each reset to 0 at
// every replay (conditions->on set). Elsewhere nothing (conditions->on stays false).
cudaError_t capture_conditions(cudaStream_t stream, int launches, GroupConditions* conditions);

// Adds the launch of `kernel` with its `arguments` (pointers to each, as cudaLaunchKernel takes
// them) and `config` to the graph config.stream captures, as the body of an IF node on `condition`
// after the stream's captured work, and makes the node the stream's capture point.
cudaError_t add_if_node(cudaGraphConditionalHandle condition, const cudaLaunchConfig_t& config, const void* kernel,
                        void** arguments);

// add_if_node for `kernel(args...)`.
template <class... Params, class... Args>
cudaError_t launch_if(cudaGraphConditionalHandle condition, const cudaLaunchConfig_t& config,
                      void (*kernel)(Params...), const Args&... args) {
  static_assert(sizeof...(Params) == sizeof...(Args), "one argument per kernel parameter");
  void* arguments[] = {const_cast<void*>(static_cast<const void*>(&args))...};
  return add_if_node(condition, config, reinterpret_cast<const void*>(kernel), arguments);
}

}  // namespace epifuse::detail

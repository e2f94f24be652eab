// One launch of a kernel that does nothing: the floor of a call's CPU cost in the host-cost table.
#pragma once

#include <cuda_runtime_api.h>

namespace epifuse::bench {

cudaError_t launch_empty_kernel(cudaStream_t stream);

}  // namespace epifuse::bench

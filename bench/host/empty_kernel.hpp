// Launches of a kernel that does nothing: the floor of a call's CPU cost in the host-cost table,
// by each path a launch can take.
#pragma once

#include <cuda_runtime_api.h>

namespace epifuse::bench {

// One block, through <<<>>>.
cudaError_t launch_empty_kernel(cudaStream_t stream);

// Through cudaLaunchKernelEx, as epifuse launches: one block without attributes, or, with
// `cluster_n` > 1, that many blocks in one cluster (the cluster kernels' launch).
cudaError_t launch_empty_kernel_ex(cudaStream_t stream, unsigned cluster_n);

}  // namespace epifuse::bench

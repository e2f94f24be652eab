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

// Through <<<>>>, with as many parameter bytes as a CUTLASS GEMM kernel, or with 384 threads and as
// much dynamic shared memory as one (its attribute set at the first launch).
constexpr int kLargeParamBytes = 1536;
constexpr int kLargeSharedBytes = 200 * 1024;
cudaError_t launch_empty_kernel_with_params(cudaStream_t stream);
cudaError_t launch_empty_kernel_with_shared_memory(cudaStream_t stream);
// Both at once, on `blocks` blocks (a persistent CUTLASS grid has one per SM).
cudaError_t launch_empty_kernel_like_cutlass(cudaStream_t stream, unsigned blocks);

}  // namespace epifuse::bench

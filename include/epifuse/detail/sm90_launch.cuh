// The one launch path of every sm90 kernel. In order: CUTLASS's can_implement, the kernel
// parameters (this encodes the TMA descriptors, or copies the ones this thread encoded before:
// src/kernels/tensor_map_cache.hpp), a check that every descriptor encoded, the
// shared-memory attribute (once per kernel and device), the caller's prologue (the call's own
// workspace writes, e.g. a padded operand), the workspace initialisation (reduction outputs
// zeroed), and the launch itself through launch_kernel (kernel_launch.hpp, which an entry point
// may record). Every failure is a Status that says which step failed and CUDA's cause; nothing is
// written or launched after a failed step. (The descriptor check needs NDEBUG, as every epifuse
// build has: without it CuTe asserts on a failed encode instead of leaving it zero.)
#pragma once

#include "epifuse/detail/cutlass_driver_calls.hpp"  // first: it sets how CUTLASS calls the driver

#include <cute/arch/copy_sm90_desc.hpp>
#include <cutlass/device_kernel.h>

#include <atomic>
#include <cstdint>
#include <string>

#include <cuda_runtime_api.h>

#include "epifuse/detail/kernel_launch.hpp"
#include "epifuse/detail/relaxed_capture.hpp"
#include "epifuse/status.hpp"

namespace epifuse::detail::sm90 {

// A TMA descriptor that failed to encode is left all zero by CuTe (which only prints the failure).
inline bool encoded(const cute::TmaDescriptor* descriptor) {
  const auto* bytes = reinterpret_cast<const unsigned char*>(descriptor);
  for (std::size_t i = 0; i < sizeof(cute::TmaDescriptor); ++i) {
    if (bytes[i] != 0) return true;
  }
  return false;
}

// For kernels whose epilogue tree encodes no descriptor of its own.
struct NoTreeDescriptors {
  template <class Params>
  static bool encoded(const Params&) {
    return true;
  }
};

// The error CUDA reported for `what`, cleared so that it does not surface in the caller's next check.
inline Status cuda_failure(const std::string& what, cudaError_t err) {
  cudaGetLastError();
  return Status::cuda_error(what + ": " + cudaGetErrorName(err) + " (" + cudaGetErrorString(err) + ")");
}

// How a kernel is entered: CUTLASS's device_kernel, with the kernel's parameters alone.
struct CutlassEntry {
  template <class Kernel>
  static constexpr auto function() {
    return cutlass::device_kernel<Kernel>;
  }
  template <class Kernel>
  cudaError_t launch(const cudaLaunchConfig_t& config, const typename Kernel::Params& params) const {
    return launch_kernel(config, function<Kernel>(), params);
  }
};

template <class Kernel, class Entry>
Status set_shared_memory_attribute(int device) {
  static std::atomic<std::uint64_t> done{0};  // bit d: set on device d
  const std::uint64_t bit = device < 64 ? std::uint64_t{1} << device : 0;
  if (bit != 0 && (done.load(std::memory_order_acquire) & bit) != 0) return Status::success();
  const RelaxedCaptureMode relaxed;  // the first set may load the kernel's module
  if (cudaError_t err = cudaFuncSetAttribute(Entry::template function<Kernel>(),
                                             cudaFuncAttributeMaxDynamicSharedMemorySize, Kernel::SharedStorageSize);
      err != cudaSuccess) {
    return cuda_failure("setting the kernel's shared-memory size", err);
  }
  done.fetch_or(bit, std::memory_order_acq_rel);
  return Status::success();
}

// For kernels that enqueue nothing before their own workspace initialisation.
struct NoPrologue {
  Status operator()(cudaStream_t) const { return Status::success(); }
};

// Launches `Kernel` on `stream` (on device `device`, the current one) through `entry`.
// TreeDescriptors::encoded checks descriptors the epilogue tree encodes itself; `prologue(stream)`
// enqueues what the kernel reads that the call prepares (a padded operand), once every check has
// passed.
template <class Kernel, class TreeDescriptors = NoTreeDescriptors, class Prologue = NoPrologue,
          class Entry = CutlassEntry>
Status launch(const typename Kernel::Arguments& arguments, void* workspace, int device, cudaStream_t stream,
              const Prologue& prologue = {}, const Entry& entry = {}) {
  if (!Kernel::can_implement(arguments)) {
    return Status::internal("CUTLASS can_implement refused arguments that validation accepted");
  }
  const typename Kernel::Params params = Kernel::to_underlying_arguments(arguments, workspace);
  using Epilogue = typename Kernel::CollectiveEpilogue;
  bool all_encoded = encoded(params.mainloop.tma_load_a.get_tma_descriptor()) &&
                     encoded(params.mainloop.tma_load_b.get_tma_descriptor()) &&
                     TreeDescriptors::encoded(params.epilogue.thread);
  if constexpr (!cute::is_void_v<typename Epilogue::ElementC>) {
    all_encoded = all_encoded && encoded(params.epilogue.tma_load_c.get_tma_descriptor());
  }
  if constexpr (!cute::is_void_v<typename Epilogue::ElementD>) {
    all_encoded = all_encoded && encoded(params.epilogue.tma_store_d.get_tma_descriptor());
  }
  if (!all_encoded) {
    return Status::internal("a TMA descriptor failed to encode (cuTensorMapEncodeTiled); nothing was launched");
  }
  if (Status s = set_shared_memory_attribute<Kernel, Entry>(device); !s.ok()) return s;
  if (Status s = prologue(stream); !s.ok()) return s;
  if (Kernel::initialize_workspace(arguments, workspace, stream, nullptr) != cutlass::Status::kSuccess) {
    // CUTLASS may have consumed the error of its memset; the stream still reports it.
    cudaError_t err = cudaGetLastError();
    if (err == cudaSuccess) err = cudaStreamQuery(stream);
    if (err == cudaSuccess || err == cudaErrorNotReady) return Status::internal("CUTLASS refused to initialise the workspace");
    return cuda_failure("initialising the workspace and reduction outputs", err);
  }

  using Cluster = typename Kernel::DispatchPolicy::ClusterShape;
  cudaLaunchAttribute attribute{};
  attribute.id = cudaLaunchAttributeClusterDimension;
  attribute.val.clusterDim.x = cute::size<0>(Cluster{});
  attribute.val.clusterDim.y = cute::size<1>(Cluster{});
  attribute.val.clusterDim.z = cute::size<2>(Cluster{});
  cudaLaunchConfig_t config{};
  config.gridDim = Kernel::get_grid_shape(params);
  config.blockDim = Kernel::get_block_shape();
  config.dynamicSmemBytes = Kernel::SharedStorageSize;
  config.stream = stream;
  // A kernel without a cluster launches as a plain grid, as CUTLASS launches it: with a 1x1x1
  // cluster attribute the swapped gated kernel ran 20-47 % slower at M = 64 on an H200
  // (bench/results/refactor-check/README.md).
  if (cute::size(Cluster{}) > 1) {
    config.attrs = &attribute;
    config.numAttrs = 1;
  }
  if (cudaError_t err = entry.template launch<Kernel>(config, params); err != cudaSuccess) {
    return cuda_failure("kernel launch", err);
  }
  return Status::success();
}

}  // namespace epifuse::detail::sm90

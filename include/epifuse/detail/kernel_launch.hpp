// How the kernels of the dense ops (the sm90 CUTLASS kernels and the warp-mma ones) are launched,
// so that an entry point can record the launch a call made and repeat it for the same arguments
// without choosing, planning or encoding TMA descriptors again (src/api/kept_launches.hpp).
#pragma once

#include <cstddef>
#include <initializer_list>
#include <optional>
#include <vector>

#include <cuda_runtime_api.h>

namespace epifuse::detail {

// One kernel parameter's bytes, of the type the kernel declares.
struct KernelParam {
  const void* bytes = nullptr;
  std::size_t size = 0;
};

// cudaLaunchKernelExC(&config, function, the parameters' addresses); while this thread records
// (LaunchRecording), a launch that succeeds is recorded too.
cudaError_t launch_kernel_params(const cudaLaunchConfig_t& config, const void* function,
                                 std::initializer_list<KernelParam> params);

// As CUDA's cudaLaunchKernelEx template: each argument converted to the type the kernel declares
// before its bytes are taken.
template <class... Params, class... Args>
cudaError_t launch_kernel(const cudaLaunchConfig_t& config, void (*function)(Params...), const Args&... args) {
  return [&](Params... converted) {
    return launch_kernel_params(config, reinterpret_cast<const void*>(function),
                                {KernelParam{&converted, sizeof(converted)}...});
  }(args...);
}

// A launch as it was made: the kernel, grid, block, dynamic shared memory, launch attributes and a
// copy of the parameters. Launching it again on a stream enqueues the same work.
class RecordedLaunch {
 public:
  static constexpr std::size_t kMaxParams = 8;
  static constexpr std::size_t kMaxAttributes = 4;

  // Whether a launch of this many parameters and attributes can be recorded.
  static bool fits(std::size_t params, unsigned attributes) {
    return params <= kMaxParams && attributes <= kMaxAttributes;
  }
  // For a launch that fits.
  RecordedLaunch(const cudaLaunchConfig_t& config, const void* function, std::initializer_list<KernelParam> params);

  cudaError_t launch(cudaStream_t stream) const;

  // What it launches (the host-cost bench prints it): grid, block and shared memory, and the
  // parameter bytes, each parameter rounded up to 64.
  const cudaLaunchConfig_t& config() const { return config_; }
  std::size_t param_bytes() const { return params_.size() * sizeof(Chunk); }

 private:
  struct alignas(64) Chunk {
    unsigned char bytes[64];
  };

  cudaLaunchConfig_t config_{};  // its stream and attributes are set at each launch
  cudaLaunchAttribute attributes_[kMaxAttributes]{};
  const void* function_ = nullptr;
  std::vector<Chunk> params_;          // each parameter from a chunk boundary
  std::size_t offsets_[kMaxParams]{};  // of each parameter in params_, in bytes
  std::size_t param_count_ = 0;
};

// Records the launches this thread makes through launch_kernel_params while it lives (the
// innermost of nested recordings). Other work a call enqueues (memsets, cuBLASLt, kernels launched
// otherwise) is not seen: the caller knows whether its call made any.
class LaunchRecording {
 public:
  LaunchRecording();
  ~LaunchRecording();
  LaunchRecording(const LaunchRecording&) = delete;
  LaunchRecording& operator=(const LaunchRecording&) = delete;

  // The recorded launch where exactly one was made; std::nullopt otherwise.
  std::optional<RecordedLaunch> take_only();

  void record(const cudaLaunchConfig_t& config, const void* function, std::initializer_list<KernelParam> params);

 private:
  LaunchRecording* outer_ = nullptr;
  int launches_ = 0;
  std::optional<RecordedLaunch> last_;
};

}  // namespace epifuse::detail

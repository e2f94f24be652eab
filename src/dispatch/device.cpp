// Device queries for dispatch, cached per device: launches never pay for them twice.
#include <array>
#include <mutex>
#include <string>

#include <cuda_runtime_api.h>

#include "epifuse/sm90/launch.hpp"

namespace epifuse::sm90 {
namespace {

struct CachedDevice {
  bool queried = false;
  Status status;
  LaunchConfig config;
};

constexpr int kMaxDevices = 64;

Status query(int device, LaunchConfig* config) {
  cudaDeviceProp prop{};
  if (cudaError_t err = cudaGetDeviceProperties(&prop, device); err != cudaSuccess) {
    return Status::cuda_error(std::string("cudaGetDeviceProperties: ") + cudaGetErrorString(err));
  }
  if (prop.major != 9 || prop.minor != 0) {
    return Status::not_supported("epifuse's kernels need an sm_90 (Hopper) GPU; device " + std::to_string(device) +
                                 " (" + prop.name + ") is sm_" + std::to_string(prop.major) +
                                 std::to_string(prop.minor));
  }
  config->device = device;
  config->sm_count = prop.multiProcessorCount;
  return Status::success();
}

}  // namespace

Status default_launch_config(LaunchConfig* config) {
  int device = 0;
  if (cudaError_t err = cudaGetDevice(&device); err != cudaSuccess) {
    return Status::cuda_error(std::string("no usable CUDA device: ") + cudaGetErrorString(err));
  }
  if (device < 0 || device >= kMaxDevices) return Status::not_supported("device index out of range");

  static std::array<CachedDevice, kMaxDevices> cache;
  static std::mutex mutex;
  std::lock_guard<std::mutex> lock(mutex);
  CachedDevice& entry = cache[device];
  if (!entry.queried) {
    entry.status = query(device, &entry.config);
    entry.queried = true;
  }
  if (entry.status.ok()) *config = entry.config;
  return entry.status;
}

}  // namespace epifuse::sm90

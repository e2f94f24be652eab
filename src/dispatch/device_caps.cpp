#include "dispatch/device_caps.hpp"

#include <array>
#include <mutex>
#include <optional>

namespace epifuse::detail {
namespace {

constexpr int kMaxDevices = 64;

// A failed query of ours, cleared so that it does not surface in the caller's next check.
Status failed(const std::string& what, cudaError_t err) {
  cudaGetLastError();
  return Status::cuda_error(what + ": " + cudaGetErrorName(err) + " (" + cudaGetErrorString(err) + ")");
}

Status query(int device, DeviceCaps* caps) {
  cudaDeviceProp prop{};
  if (cudaError_t err = cudaGetDeviceProperties(&prop, device); err != cudaSuccess) {
    return failed("cudaGetDeviceProperties", err);
  }
  caps->device = device;
  caps->cc_major = prop.major;
  caps->cc_minor = prop.minor;
  caps->sm_count = prop.multiProcessorCount;
  caps->name = prop.name;
  caps->l2_bytes = prop.l2CacheSize;
  int memory_khz = 0, bus_bits = 0;
  if (cudaDeviceGetAttribute(&memory_khz, cudaDevAttrMemoryClockRate, device) == cudaSuccess &&
      cudaDeviceGetAttribute(&bus_bits, cudaDevAttrGlobalMemoryBusWidth, device) == cudaSuccess) {
    caps->dram_gbps = 2.0 * memory_khz * 1e3 * (bus_bits / 8) / 1e9;  // two transfers per clock
  } else {
    cudaGetLastError();  // a dispatch rule that needs it keeps its default
  }
  return Status::success();
}

}  // namespace

Status stream_device_caps(cudaStream_t stream, const DeviceCaps** caps) {
  int current = 0;
  if (cudaError_t err = cudaGetDevice(&current); err != cudaSuccess) return failed("no usable CUDA device", err);
  if (cudaError_t pending = cudaPeekAtLastError(); pending != cudaSuccess) {
    return Status::cuda_error(std::string("a CUDA error from earlier work is pending: ") + cudaGetErrorName(pending) +
                              " (" + cudaGetErrorString(pending) +
                              "); nothing was launched. Its owner clears it with cudaGetLastError()");
  }
  // CUDA refuses cudaStreamGetDevice on a capturing stream (and a refused call would invalidate
  // the capture): the device of a stream under capture is taken to be the current one.
  cudaStreamCaptureStatus capture = cudaStreamCaptureStatusNone;
  if (cudaError_t err = cudaStreamIsCapturing(stream, &capture); err != cudaSuccess) {
    return failed("cudaStreamIsCapturing", err);
  }
  int stream_device = current;
  if (capture == cudaStreamCaptureStatusNone) {
    if (cudaError_t err = cudaStreamGetDevice(stream, &stream_device); err != cudaSuccess) {
      return failed("cudaStreamGetDevice", err);
    }
  }
  if (stream_device != current) {
    return Status::invalid_argument("the stream belongs to device " + std::to_string(stream_device) + " but device " +
                                    std::to_string(current) +
                                    " is current, where kernels launch: make the stream's device current first");
  }
  if (current < 0 || current >= kMaxDevices) {
    return Status::not_supported("device index " + std::to_string(current) + " is beyond the " +
                                 std::to_string(kMaxDevices) + " epifuse keeps");
  }
  static std::array<std::optional<DeviceCaps>, kMaxDevices> cache;
  static std::mutex mutex;
  std::lock_guard<std::mutex> lock(mutex);
  std::optional<DeviceCaps>& entry = cache[current];
  if (!entry) {
    DeviceCaps fresh;
    if (Status s = query(current, &fresh); !s.ok()) return s;
    entry = fresh;
  }
  *caps = &*entry;
  return Status::success();
}

}  // namespace epifuse::detail

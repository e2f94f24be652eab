#include "testing/device_buffer.hpp"

#include <algorithm>
#include <stdexcept>
#include <string>
#include <utility>

#include <cuda_runtime_api.h>

namespace epifuse::testing {

void check_cuda(int error, const char* what) {
  if (error != cudaSuccess) {
    throw std::runtime_error(std::string(what) + " failed: " + cudaGetErrorString(static_cast<cudaError_t>(error)));
  }
}

DeviceBuffer::DeviceBuffer(std::size_t bytes, std::size_t guard_bytes) : bytes_(bytes), guard_bytes_(guard_bytes) {
  EPIFUSE_CHECK_CUDA(cudaMalloc(&data_, std::max<std::size_t>(bytes_ + guard_bytes_, 1)));
  poison();
}

DeviceBuffer::~DeviceBuffer() {
  if (data_) cudaFree(data_);
}

DeviceBuffer::DeviceBuffer(DeviceBuffer&& other) noexcept
    : data_(std::exchange(other.data_, nullptr)),
      bytes_(std::exchange(other.bytes_, 0)),
      guard_bytes_(std::exchange(other.guard_bytes_, 0)),
      poison_byte_(other.poison_byte_) {}

DeviceBuffer& DeviceBuffer::operator=(DeviceBuffer&& other) noexcept {
  if (this != &other) {
    if (data_) cudaFree(data_);
    data_ = std::exchange(other.data_, nullptr);
    bytes_ = std::exchange(other.bytes_, 0);
    guard_bytes_ = std::exchange(other.guard_bytes_, 0);
    poison_byte_ = other.poison_byte_;
  }
  return *this;
}

// Waits for the memset and for any copy queued before it: neither blocks the host, and a launch on a
// non-blocking stream would not wait for them (a graph replayed under compute-sanitizer read inputs
// a device-to-device copy was still writing).
void DeviceBuffer::poison(std::uint8_t byte) {
  poison_byte_ = byte;
  EPIFUSE_CHECK_CUDA(cudaMemset(data_, byte, bytes_ + guard_bytes_));
  EPIFUSE_CHECK_CUDA(cudaDeviceSynchronize());
}

void DeviceBuffer::upload(const void* host, std::size_t bytes) {
  EPIFUSE_CHECK_CUDA(cudaMemcpy(data_, host, std::min(bytes, bytes_), cudaMemcpyHostToDevice));
}

std::vector<std::uint8_t> DeviceBuffer::download() const {
  std::vector<std::uint8_t> host(bytes_);
  EPIFUSE_CHECK_CUDA(cudaMemcpy(host.data(), data_, bytes_, cudaMemcpyDeviceToHost));
  return host;
}

bool DeviceBuffer::guard_intact() const {
  std::vector<std::uint8_t> guard(guard_bytes_);
  EPIFUSE_CHECK_CUDA(cudaMemcpy(guard.data(), static_cast<std::uint8_t*>(data_) + bytes_, guard_bytes_,
                                cudaMemcpyDeviceToHost));
  return std::all_of(guard.begin(), guard.end(), [this](std::uint8_t b) { return b == poison_byte_; });
}

bool hopper_available(std::string* why) {
  int count = 0;
  if (cudaGetDeviceCount(&count) != cudaSuccess || count == 0) {
    cudaGetLastError();
    *why = "no CUDA device on this machine";
    return false;
  }
  cudaDeviceProp prop{};
  EPIFUSE_CHECK_CUDA(cudaGetDeviceProperties(&prop, 0));
  if (prop.major != 9 || prop.minor != 0) {
    *why = std::string("device 0 (") + prop.name + ") is not sm_90; epifuse's kernels are built for sm_90a";
    return false;
  }
  return true;
}

}  // namespace epifuse::testing

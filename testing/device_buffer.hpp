// Device memory for tests and the bench: RAII, poisoned with NaN bytes, with a guard band past
// the end that must stay poisoned (catches writes beyond an operand).
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace epifuse::testing {

constexpr std::uint8_t kPoisonByte = 0xFF;  // 0xFFFF / 0xFFFFFFFF: NaN in bf16, fp16 and fp32
// For outputs that may legitimately hold NaN: 0x7F7F is 3.4e38 in bf16, 0x7F7F7F7F 3.4e38 in fp32.
constexpr std::uint8_t kFinitePoisonByte = 0x7F;

class DeviceBuffer {
 public:
  DeviceBuffer() = default;
  explicit DeviceBuffer(std::size_t bytes, std::size_t guard_bytes = 4096);
  ~DeviceBuffer();
  DeviceBuffer(DeviceBuffer&& other) noexcept;
  DeviceBuffer& operator=(DeviceBuffer&& other) noexcept;
  DeviceBuffer(const DeviceBuffer&) = delete;
  DeviceBuffer& operator=(const DeviceBuffer&) = delete;

  void* data() const { return data_; }
  template <class T>
  T* as() const { return static_cast<T*>(data_); }
  std::size_t bytes() const { return bytes_; }

  // Fills the buffer and its guard band with `byte`.
  void poison(std::uint8_t byte = kPoisonByte);
  void upload(const void* host, std::size_t bytes);
  std::vector<std::uint8_t> download() const;
  // True when every guard byte still holds the last poison byte.
  bool guard_intact() const;
  // An order-independent hash of the buffer's bytes, computed on the device.
  std::uint64_t fingerprint() const;

 private:
  void* data_ = nullptr;
  std::size_t bytes_ = 0;
  std::size_t guard_bytes_ = 0;
  std::uint8_t poison_byte_ = kPoisonByte;
};

// Throws std::runtime_error with the call's text when a CUDA call fails.
void check_cuda(int error, const char* what);
#define EPIFUSE_CHECK_CUDA(call) ::epifuse::testing::check_cuda(static_cast<int>(call), #call)

// Whether a CUDA device of compute capability 9.0 is usable; `why` says why not.
bool hopper_available(std::string* why);

}  // namespace epifuse::testing

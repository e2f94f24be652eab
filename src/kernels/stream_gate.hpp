// A gate that holds a stream until the host opens it: what the host enqueues behind a closed gate
// then runs back to back on the device, not at the rate the host launches it. Timing a 5 µs
// cuBLASLt call one launch at a time measures the host's launch gaps as much as the kernel.
#pragma once

#include <cstdint>

#include <cuda_runtime_api.h>

namespace epifuse::detail {

class StreamGate {
 public:
  StreamGate() = default;
  StreamGate(const StreamGate&) = delete;
  StreamGate& operator=(const StreamGate&) = delete;
  ~StreamGate() { open(); }

  // Enqueues on `stream` a one-thread kernel that waits until open() runs, or kMaxHoldMs of device
  // time have passed (so a host that never opens it cannot stall the stream). False, and no gate,
  // where the process has no mapped host memory for the flag or the launch fails.
  bool close(cudaStream_t stream);
  // Lets the stream run on. Idempotent.
  void open();

  static constexpr std::uint64_t kMaxHoldMs = 50;

 private:
  std::uint32_t generation_ = 0;  // 0: not closed
};

}  // namespace epifuse::detail

// One flag in mapped host memory for the process; each closing takes the next generation, and the
// kernel waits until the flag reaches it, so gates closed by several threads open independently
// (opening a later one releases earlier ones too: they then time less well, never deadlock).
#include "kernels/stream_gate.hpp"

#include <atomic>
#include <mutex>

namespace epifuse::detail {
namespace {

struct GateFlag {
  volatile std::uint32_t* host = nullptr;
  const volatile std::uint32_t* device = nullptr;
};

// nullptr members where mapped host memory is not available.
const GateFlag& gate_flag() {
  static const GateFlag flag = [] {
    GateFlag f;
    void* host = nullptr;
    void* device = nullptr;
    if (cudaHostAlloc(&host, sizeof(std::uint32_t), cudaHostAllocMapped | cudaHostAllocPortable) != cudaSuccess) {
      cudaGetLastError();
      return f;
    }
    if (cudaHostGetDevicePointer(&device, host, 0) != cudaSuccess) {
      cudaGetLastError();
      cudaFreeHost(host);
      return f;
    }
    f.host = static_cast<volatile std::uint32_t*>(host);
    *f.host = 0;
    f.device = static_cast<const volatile std::uint32_t*>(device);
    return f;
  }();
  return flag;
}

std::mutex& open_mutex() {
  static std::mutex mutex;
  return mutex;
}

std::atomic<std::uint32_t>& last_generation() {
  static std::atomic<std::uint32_t> generation{0};
  return generation;
}

__device__ __forceinline__ std::uint64_t global_ns() {
  std::uint64_t ns;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(ns));
  return ns;
}

__global__ void wait_for_generation(const volatile std::uint32_t* flag, std::uint32_t generation,
                                    std::uint64_t max_ns) {
  const std::uint64_t start = global_ns();
  while (static_cast<std::int32_t>(*flag - generation) < 0 && global_ns() - start < max_ns) __nanosleep(1000);
}

}  // namespace

bool StreamGate::close(cudaStream_t stream) {
  const GateFlag& flag = gate_flag();
  if (flag.device == nullptr || generation_ != 0) return false;
  std::uint32_t generation = last_generation().fetch_add(1) + 1;
  if (generation == 0) generation = last_generation().fetch_add(1) + 1;  // 0 means "not closed"
  wait_for_generation<<<1, 1, 0, stream>>>(flag.device, generation, kMaxHoldMs * 1000000);
  if (cudaGetLastError() != cudaSuccess) return false;
  generation_ = generation;
  return true;
}

void StreamGate::open() {
  if (generation_ == 0) return;
  {
    const std::lock_guard<std::mutex> lock(open_mutex());
    volatile std::uint32_t* flag = gate_flag().host;
    if (static_cast<std::int32_t>(*flag - generation_) < 0) *flag = generation_;
  }
  generation_ = 0;
}

}  // namespace epifuse::detail

// N fp32 values of one thread, for device::activate() in the elementwise kernels (the delegated
// ops' second halves).
#pragma once

namespace epifuse::device {

template <int N>
struct Floats {
  static constexpr int kElements = N;
  float v[N];
  __device__ float& operator[](int i) { return v[i]; }
  __device__ float operator[](int i) const { return v[i]; }
};

}  // namespace epifuse::device

// What dispatch knows of the device a call runs on. The query reports every GPU as it is;
// whether a compiled kernel serves it is dispatch's answer (select.hpp), not the query's.
#pragma once

#include <cstdint>
#include <string>

#include <cuda_runtime_api.h>

#include "epifuse/status.hpp"

namespace epifuse::detail {

struct DeviceCaps {
  int device = 0;
  int cc_major = 0, cc_minor = 0;
  int sm_count = 0;
  std::string name;
  double dram_gbps = 0;  // peak DRAM bandwidth from the memory clock and bus width; 0: unknown
  std::int64_t l2_bytes = 0;
};

// The checks every launch makes first, then the capabilities of `stream`'s device, queried once
// per device and kept for the process (`*caps` points at that copy):
//   - a usable CUDA device (kCudaError with CUDA's cause otherwise);
//   - no CUDA error pending from earlier work (kCudaError naming it; it stays pending for its owner);
//   - the stream on the current device (kInvalidArgument: kernels launch on the current device);
//     a stream under graph capture cannot be asked, and is taken to be on the current device.
Status stream_device_caps(cudaStream_t stream, const DeviceCaps** caps);

}  // namespace epifuse::detail

// Lets this thread make host-only calls that prepare a launch (TMA descriptor encoding through the
// driver entry point, a kernel's attribute, which may load its module, cuBLASLt's handle and
// heuristics) while it captures a graph in Global mode, where CUDA refuses calls that might be
// unsafe during capture. Stream work is captured as before.
#pragma once

#include <cuda_runtime_api.h>

namespace epifuse::detail {

class RelaxedCaptureMode {
 public:
  RelaxedCaptureMode() { cudaThreadExchangeStreamCaptureMode(&previous_); }
  ~RelaxedCaptureMode() { cudaThreadExchangeStreamCaptureMode(&previous_); }
  RelaxedCaptureMode(const RelaxedCaptureMode&) = delete;
  RelaxedCaptureMode& operator=(const RelaxedCaptureMode&) = delete;

 private:
  cudaStreamCaptureMode previous_ = cudaStreamCaptureModeRelaxed;
};

}  // namespace epifuse::detail

// Timing with CUDA event pairs around every launch, after warm-up; the median and the spread.
#pragma once

#include <functional>

#include <cuda_runtime_api.h>

namespace epifuse::bench {

struct TimingOptions {
  int min_iters = 20;
  int max_iters = 300;
  double target_ms = 300.0;  // total measured time to aim for, within the iteration bounds
};

struct Timing {
  double median_us = 0, p10_us = 0, p90_us = 0;
  int samples = 0;
};

// `launch(i)` enqueues iteration i on `stream` (rotate buffer sets by i). Event pairs bracket
// each launch, so the times are device time plus any launch gap the host leaves.
Timing time_launches(const std::function<void(int)>& launch, cudaStream_t stream, const TimingOptions& options = {});

}  // namespace epifuse::bench

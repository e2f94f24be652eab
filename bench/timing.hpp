// Timing with CUDA event pairs around every launch, after warm-up; the median and the spread.
//
// Implementations compared against each other are timed interleaved: round after round, each
// runs a short burst, in a fresh random order every round. A GPU under a power cap changes its
// clock over seconds and with what ran just before, so timing one implementation after another
// would hand the later ones a different clock; interleaving gives every implementation the same
// mix of clock states.
#pragma once

#include <functional>
#include <vector>

#include <cuda_runtime_api.h>

namespace epifuse::bench {

struct TimingOptions {
  double target_ms = 400.0;  // measured time per implementation, spread over the rounds
  int rounds = 16;
  int min_per_round = 3;
  int max_per_round = 40;
};

struct Timing {
  double median_us = 0, p10_us = 0, p90_us = 0;
  int samples = 0;
};

// `launches[i](iteration)` enqueues one run of implementation i on `stream` (rotate operand sets
// by iteration). Event pairs bracket each run: device time plus any launch gap the host leaves.
std::vector<Timing> time_interleaved(const std::vector<std::function<void(int)>>& launches, cudaStream_t stream,
                                     const TimingOptions& options = {});

// One implementation alone.
Timing time_launches(const std::function<void(int)>& launch, cudaStream_t stream, const TimingOptions& options = {});

}  // namespace epifuse::bench

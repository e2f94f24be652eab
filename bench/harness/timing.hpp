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
  // Capture each implementation's launches in CUDA graphs and time graph launches: takes the
  // host's per-call work (argument setup, launch API) out of the measurement, as a serving
  // engine's graphs do for small M.
  bool graphs = false;
  // How many operand sets the launches rotate over: graph mode captures one graph per set.
  int operand_sets = 1;
};

// Enqueues one run of an implementation on `stream`; `iteration` picks the operand set (rotate
// sets by iteration). Must be capturable into a CUDA graph when TimingOptions::graphs is set.
using Launch = std::function<void(int iteration, cudaStream_t stream)>;

struct Timing {
  double median_us = 0, p10_us = 0, p90_us = 0;
  int samples = 0;
};

// Times every launch on a stream of its own making. Event pairs bracket each run: device time plus
// any launch gap the host leaves.
std::vector<Timing> time_interleaved(const std::vector<Launch>& launches, const TimingOptions& options = {});

}  // namespace epifuse::bench

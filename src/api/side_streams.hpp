// Streams beside the caller's, on which a grouped call's launches run at once rather than in turn:
// each launch's CTAs take the SMs the others leave as their tiles run out, and a launch the setup
// kernel gave no expert returns while the others run. Kept per host thread, device and stream
// priority, so that no other thread's work (or capture) ever meets a call's side streams.
#pragma once

#include <cuda_runtime_api.h>

#include "epifuse/status.hpp"

namespace epifuse::detail {

struct SideStreams {
  static constexpr int kMax = 4;
  cudaStream_t streams[kMax] = {};
  cudaEvent_t done[kMax] = {};  // each stream's, for the join
  int count = 0;  // 0: the launches run in turn on the caller's stream
};

// Up to kMax streams (count of them) that start after the work enqueued on `stream` so far, on the
// current device. None (count 0, success) where the calling thread has none for this device and
// priority yet while `stream` is capturing: creating them then could end the capture.
Status fork_side_streams(cudaStream_t stream, int count, SideStreams* sides);

// `stream` waits for everything enqueued on the side streams, which leaves a capture whole.
Status join_side_streams(cudaStream_t stream, const SideStreams& sides);

}  // namespace epifuse::detail

// Each thread keeps the launch a call made, by the call's key (api/call_key.hpp) and device, where
// that launch was all the call enqueued. A later call with the same key on the same device repeats
// it after the device checks every call makes, and skips validation, the kernel choice, the plan
// and the TMA descriptors: 0.8-2.1 µs of an H200 host's 5-9 per call at one token
// (bench/results/host-cost/kept-launches/). They are functions of the key but for a gated call's
// way, which its first eager launch may time (api/gated_path.hpp): a call is kept only once its
// way is final.
#pragma once

#include <cstddef>
#include <optional>

#include "api/call_key.hpp"
#include "epifuse/detail/kernel_launch.hpp"

namespace epifuse::detail {

struct KeptLaunch {
  int device = -1;
  RecordedLaunch launch;
};

// This thread's launch for `key`, or null (none, or keeping is off).
const KeptLaunch* find_kept_launch(const CallKey& key);

// Notes that this thread met `key` (a keepable call without a kept launch) and says whether it
// had met it before, with keeping on. A key is kept at its second call, so that calls whose
// arguments never come again (x at a new address every call) record nothing.
bool seen_before(const CallKey& key);

// Keeps `launch` for `key` on `device` (nothing where keeping is off or there is no launch).
void keep_launch(const CallKey& key, int device, std::optional<RecordedLaunch> launch);

// Launches `kept`, this thread's launch for `key`, again on `stream`. A launch CUDA refuses is
// dropped, so that the next such call takes the whole path.
cudaError_t repeat_kept_launch(const CallKey& key, const KeptLaunch& kept, cudaStream_t stream);

// Whether calls keep and repeat launches (the default) or take the whole path every time, for
// every thread from its next call on: the host-cost bench's A/B and the tests that both agree.
void keep_launches(bool keep);

// This thread's kept launches, how many calls repeated one, and forgetting them all (tests).
std::size_t kept_launch_count();
std::size_t repeated_launch_count();
void forget_kept_launches();

}  // namespace epifuse::detail

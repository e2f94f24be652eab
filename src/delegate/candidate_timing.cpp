#include "delegate/candidate_timing.hpp"

#include <algorithm>
#include <limits>
#include <vector>

namespace epifuse::detail {
namespace {

// One event before each run of a round and one after its last: run i lies between events i, i+1.
class RoundEvents {
 public:
  RoundEvents() = default;
  RoundEvents(const RoundEvents&) = delete;
  RoundEvents& operator=(const RoundEvents&) = delete;
  ~RoundEvents() {
    for (cudaEvent_t e : events_) cudaEventDestroy(e);
  }

  bool create(int count) {
    events_.reserve(count + 1);
    for (int i = 0; i <= count; ++i) {
      cudaEvent_t e = nullptr;
      if (cudaEventCreate(&e) != cudaSuccess) return false;
      events_.push_back(e);
    }
    return true;
  }

  cudaEvent_t at(int i) const { return events_[i]; }

 private:
  std::vector<cudaEvent_t> events_;
};

// Enqueues one round; clears usable[i] where candidate i could not be enqueued.
bool enqueue_round(const RoundEvents& events, int count, const std::function<bool(int, cudaStream_t)>& run,
                   cudaStream_t stream, std::vector<bool>* usable) {
  if (cudaEventRecord(events.at(0), stream) != cudaSuccess) return false;
  for (int i = 0; i < count; ++i) {
    if ((*usable)[i] && !run(i, stream)) (*usable)[i] = false;
    if (cudaEventRecord(events.at(i + 1), stream) != cudaSuccess) return false;
  }
  return true;
}

// Run i's time in a finished round, in ms.
bool run_ms(const RoundEvents& events, int i, float* ms) {
  return cudaEventElapsedTime(ms, events.at(i), events.at(i + 1)) == cudaSuccess;
}

}  // namespace

int fastest_candidate(int count, const std::function<bool(int, cudaStream_t)>& run, cudaStream_t stream) {
  if (count <= 0) return -1;
  std::vector<bool> usable(count, true);

  RoundEvents warm_up;
  if (!warm_up.create(count) || !enqueue_round(warm_up, count, run, stream, &usable) ||
      cudaEventSynchronize(warm_up.at(count)) != cudaSuccess) {
    return -1;
  }
  float round_ms = 0.0f;
  for (int i = 0; i < count; ++i) {
    float ms = 0.0f;
    if (!run_ms(warm_up, i, &ms)) return -1;
    if (usable[i]) round_ms += ms;
  }
  const int rounds = round_ms > 0.0f ? std::clamp(static_cast<int>(kTimingBudgetMs / round_ms), kMinTimedRounds,
                                                  kMaxTimedRounds)
                                     : kMaxTimedRounds;

  std::vector<RoundEvents> timed(rounds);
  for (RoundEvents& events : timed) {
    if (!events.create(count) || !enqueue_round(events, count, run, stream, &usable)) return -1;
  }
  if (cudaEventSynchronize(timed.back().at(count)) != cudaSuccess) return -1;

  std::vector<double> median_ms(count, std::numeric_limits<double>::infinity());
  for (int i = 0; i < count; ++i) {
    if (!usable[i]) continue;
    std::vector<float> samples(rounds);
    for (int r = 0; r < rounds; ++r) {
      if (!run_ms(timed[r], i, &samples[r])) return -1;
    }
    std::nth_element(samples.begin(), samples.begin() + rounds / 2, samples.end());
    median_ms[i] = samples[rounds / 2];
  }
  const double fastest = *std::min_element(median_ms.begin(), median_ms.end());
  if (fastest == std::numeric_limits<double>::infinity()) return -1;
  for (int i = 0; i < count; ++i) {
    if (median_ms[i] <= kCandidateTieFactor * fastest) return i;
  }
  return -1;
}

}  // namespace epifuse::detail

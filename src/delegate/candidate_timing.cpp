#include "delegate/candidate_timing.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <utility>

#include "kernels/stream_gate.hpp"

namespace epifuse::detail {
namespace {

// Pairs of events around runs: run r lies between events 2r and 2r + 1.
class RunEvents {
 public:
  RunEvents() = default;
  RunEvents(const RunEvents&) = delete;
  RunEvents& operator=(const RunEvents&) = delete;
  RunEvents(RunEvents&& other) noexcept : events_(std::move(other.events_)) {}
  ~RunEvents() {
    for (cudaEvent_t e : events_) cudaEventDestroy(e);
  }

  bool create(int runs) {
    events_.reserve(2 * runs);
    for (int i = 0; i < 2 * runs; ++i) {
      cudaEvent_t e = nullptr;
      if (cudaEventCreate(&e) != cudaSuccess) return false;
      events_.push_back(e);
    }
    return true;
  }

  cudaEvent_t start(int r) const { return events_[2 * r]; }
  cudaEvent_t end(int r) const { return events_[2 * r + 1]; }

  bool run_us(int r, double* us) const {
    float ms = 0.0f;
    if (cudaEventElapsedTime(&ms, start(r), end(r)) != cudaSuccess) return false;
    *us = 1000.0 * ms;
    return true;
  }

 private:
  std::vector<cudaEvent_t> events_;
};

// Runs each usable candidate once, timed; `pass_us` gets the sum of their times. False where an
// event call failed.
bool sizing_pass(int count, const std::function<bool(int, cudaStream_t)>& run, cudaStream_t stream,
                 std::vector<bool>* usable, double* pass_us) {
  RunEvents sizing;
  if (!sizing.create(count)) return false;
  for (int i = 0; i < count; ++i) {
    if (cudaEventRecord(sizing.start(i), stream) != cudaSuccess) return false;
    if ((*usable)[i]) (*usable)[i] = run(i, stream);
    if (cudaEventRecord(sizing.end(i), stream) != cudaSuccess) return false;
  }
  if (cudaEventSynchronize(sizing.end(count - 1)) != cudaSuccess) return false;
  *pass_us = 0.0;
  for (int i = 0; i < count; ++i) {
    double us = 0.0;
    if (!sizing.run_us(i, &us)) return false;
    if ((*usable)[i]) *pass_us += us;
  }
  return true;
}

}  // namespace

CandidateTimes time_candidates(int count, const std::function<bool(int, cudaStream_t)>& run, cudaStream_t stream,
                               double warmup_ms) {
  CandidateTimes times;
  if (count <= 0) return times;
  std::vector<bool> usable(count, true);

  // Sizing pass: one run of each candidate, the first load of its kernel included. Before a
  // warm-up a second pass sizes it, each kernel loaded by then.
  double pass_us = 0.0;
  if (!sizing_pass(count, run, stream, &usable, &pass_us)) return times;
  if (warmup_ms > 0.0 && !sizing_pass(count, run, stream, &usable, &pass_us)) return times;
  const int runs = 2 * (pass_us > 0.0 ? std::clamp(static_cast<int>(500.0 * kTimingBudgetMs / pass_us),
                                                   kMinTimedRuns / 2, kMaxTimedRuns / 2)
                                        : kMaxTimedRuns / 2);

  // Warm-up: the GPU's clock settles where it will run the call in a busy model's layer.
  const int usable_count = static_cast<int>(std::count(usable.begin(), usable.end(), true));
  if (warmup_ms > 0.0 && pass_us > 0.0 && usable_count > 0) {
    const int passes = static_cast<int>(
        std::min(std::ceil(1000.0 * warmup_ms / pass_us), static_cast<double>(kMaxWarmupRuns / usable_count)));
    for (int p = 0; p < passes; ++p) {
      for (int i = 0; i < count; ++i) {
        if (usable[i]) usable[i] = run(i, stream);
      }
    }
  }

  // Timed runs, all enqueued behind a closed gate and released together: half of each
  // candidate's in the first pass, the rest in the second, which walks the candidates backwards.
  std::vector<RunEvents> timed(count);
  for (int i = 0; i < count; ++i) {
    if (usable[i] && !timed[i].create(runs)) return times;
  }
  cudaEvent_t last = nullptr;
  {
    StreamGate gate;
    gate.close(stream);
    for (int pass = 0; pass < 2; ++pass) {
      for (int n = 0; n < count; ++n) {
        const int i = pass == 0 ? n : count - 1 - n;
        if (!usable[i]) continue;
        usable[i] = run(i, stream);  // untimed: the candidate follows itself from here on
        for (int r = pass * runs / 2; r < (pass + 1) * runs / 2 && usable[i]; ++r) {
          if (cudaEventRecord(timed[i].start(r), stream) != cudaSuccess) return times;
          usable[i] = run(i, stream);
          if (cudaEventRecord(timed[i].end(r), stream) != cudaSuccess) return times;
          last = timed[i].end(r);
        }
      }
    }
  }
  if (last != nullptr && cudaEventSynchronize(last) != cudaSuccess) return times;  // null: no candidate ran

  times.median_us.assign(count, std::numeric_limits<double>::infinity());
  for (int i = 0; i < count; ++i) {
    if (!usable[i]) continue;
    std::vector<double> samples(runs);
    for (int r = 0; r < runs; ++r) {
      if (!timed[i].run_us(r, &samples[r])) return times;
    }
    std::nth_element(samples.begin(), samples.begin() + runs / 2, samples.end());
    times.median_us[i] = samples[runs / 2];
  }
  const double fastest = *std::min_element(times.median_us.begin(), times.median_us.end());
  for (int i = 0; i < count && fastest < std::numeric_limits<double>::infinity(); ++i) {
    if (times.median_us[i] <= kCandidateTieFactor * fastest) {
      times.pick = i;
      break;
    }
  }
  return times;
}

bool stream_capturing(cudaStream_t stream) {
  cudaStreamCaptureStatus status = cudaStreamCaptureStatusNone;
  if (cudaStreamIsCapturing(stream, &status) != cudaSuccess) {
    cudaGetLastError();  // the legacy stream while another stream captures: not ours to report
    return true;
  }
  return status != cudaStreamCaptureStatusNone;
}

}  // namespace epifuse::detail

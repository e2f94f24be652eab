#include "bench/timing.hpp"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <random>

#include "tests/support/device_buffer.hpp"

namespace epifuse::bench {
namespace {

double percentile_us(const std::vector<float>& sorted_ms, double p) {
  const double pos = p * (sorted_ms.size() - 1);
  const auto lo = static_cast<std::size_t>(std::floor(pos));
  const auto hi = std::min(lo + 1, sorted_ms.size() - 1);
  return 1000.0 * (sorted_ms[lo] + (pos - lo) * (sorted_ms[hi] - sorted_ms[lo]));
}

// Milliseconds per run of `launch`, after a warm-up (module load, first touch, clock ramp).
float estimate_ms(const std::function<void(int)>& launch, cudaStream_t stream) {
  cudaEvent_t start, stop;
  EPIFUSE_CHECK_CUDA(cudaEventCreate(&start));
  EPIFUSE_CHECK_CUDA(cudaEventCreate(&stop));
  for (int i = 0; i < 3; ++i) launch(i);
  constexpr int kRuns = 5;
  EPIFUSE_CHECK_CUDA(cudaEventRecord(start, stream));
  for (int i = 0; i < kRuns; ++i) launch(i);
  EPIFUSE_CHECK_CUDA(cudaEventRecord(stop, stream));
  EPIFUSE_CHECK_CUDA(cudaEventSynchronize(stop));
  float ms = 0;
  EPIFUSE_CHECK_CUDA(cudaEventElapsedTime(&ms, start, stop));
  cudaEventDestroy(start);
  cudaEventDestroy(stop);
  return std::max(ms / kRuns, 1e-4f);
}

}  // namespace

std::vector<Timing> time_interleaved(const std::vector<std::function<void(int)>>& launches, cudaStream_t stream,
                                     const TimingOptions& options) {
  const std::size_t n = launches.size();
  std::vector<int> per_round(n);
  for (std::size_t i = 0; i < n; ++i) {
    const double per_round_ms = options.target_ms / options.rounds;
    per_round[i] = std::clamp(static_cast<int>(per_round_ms / estimate_ms(launches[i], stream)), options.min_per_round,
                              options.max_per_round);
  }

  // events[i]: start/stop pairs of implementation i, in launch order. Each round visits the
  // implementations in a fresh order: a power-capped GPU's clock also depends on what ran just
  // before, and a fixed order would hand each implementation a fixed neighbour.
  std::vector<std::vector<cudaEvent_t>> events(n);
  std::vector<int> iteration(n, 0);
  std::vector<std::size_t> order(n);
  std::iota(order.begin(), order.end(), 0);
  std::mt19937 rng(12345);
  for (int round = 0; round < options.rounds; ++round) {
    std::shuffle(order.begin(), order.end(), rng);
    for (const std::size_t i : order) {
      launches[i](iteration[i]++);  // untimed: absorbs the switch from the previous implementation
      for (int k = 0; k < per_round[i]; ++k) {
        cudaEvent_t start, stop;
        EPIFUSE_CHECK_CUDA(cudaEventCreate(&start));
        EPIFUSE_CHECK_CUDA(cudaEventCreate(&stop));
        EPIFUSE_CHECK_CUDA(cudaEventRecord(start, stream));
        launches[i](iteration[i]++);
        EPIFUSE_CHECK_CUDA(cudaEventRecord(stop, stream));
        events[i].push_back(start);
        events[i].push_back(stop);
      }
    }
    EPIFUSE_CHECK_CUDA(cudaStreamSynchronize(stream));  // bounds the queue; costs no measured time
  }
  EPIFUSE_CHECK_CUDA(cudaGetLastError());

  std::vector<Timing> timings(n);
  for (std::size_t i = 0; i < n; ++i) {
    std::vector<float> ms(events[i].size() / 2);
    for (std::size_t k = 0; k < ms.size(); ++k) {
      EPIFUSE_CHECK_CUDA(cudaEventElapsedTime(&ms[k], events[i][2 * k], events[i][2 * k + 1]));
    }
    for (cudaEvent_t e : events[i]) cudaEventDestroy(e);
    std::sort(ms.begin(), ms.end());
    timings[i] = {percentile_us(ms, 0.5), percentile_us(ms, 0.1), percentile_us(ms, 0.9), static_cast<int>(ms.size())};
  }
  return timings;
}

Timing time_launches(const std::function<void(int)>& launch, cudaStream_t stream, const TimingOptions& options) {
  return time_interleaved({launch}, stream, options).front();
}

}  // namespace epifuse::bench

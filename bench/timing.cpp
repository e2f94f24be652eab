#include "bench/timing.hpp"

#include <algorithm>
#include <cmath>
#include <vector>

#include "tests/support/device_buffer.hpp"

namespace epifuse::bench {
namespace {

double percentile(const std::vector<float>& sorted_ms, double p) {
  const double pos = p * (sorted_ms.size() - 1);
  const auto lo = static_cast<std::size_t>(std::floor(pos));
  const auto hi = std::min(lo + 1, sorted_ms.size() - 1);
  return 1000.0 * (sorted_ms[lo] + (pos - lo) * (sorted_ms[hi] - sorted_ms[lo]));
}

}  // namespace

Timing time_launches(const std::function<void(int)>& launch, cudaStream_t stream, const TimingOptions& options) {
  cudaEvent_t start, stop;
  EPIFUSE_CHECK_CUDA(cudaEventCreate(&start));
  EPIFUSE_CHECK_CUDA(cudaEventCreate(&stop));
  // Warm-up: module load, first-touch, clocks ramping; also sizes the run.
  for (int i = 0; i < 3; ++i) launch(i);
  EPIFUSE_CHECK_CUDA(cudaEventRecord(start, stream));
  for (int i = 0; i < 5; ++i) launch(i);
  EPIFUSE_CHECK_CUDA(cudaEventRecord(stop, stream));
  EPIFUSE_CHECK_CUDA(cudaEventSynchronize(stop));
  float warm_ms = 0;
  EPIFUSE_CHECK_CUDA(cudaEventElapsedTime(&warm_ms, start, stop));
  EPIFUSE_CHECK_CUDA(cudaEventDestroy(start));
  EPIFUSE_CHECK_CUDA(cudaEventDestroy(stop));

  const int iters = std::clamp(static_cast<int>(options.target_ms / std::max(warm_ms / 5.0, 1e-3)), options.min_iters,
                               options.max_iters);
  std::vector<cudaEvent_t> events(2 * iters);
  for (cudaEvent_t& e : events) EPIFUSE_CHECK_CUDA(cudaEventCreate(&e));
  for (int i = 0; i < iters; ++i) {
    EPIFUSE_CHECK_CUDA(cudaEventRecord(events[2 * i], stream));
    launch(i);
    EPIFUSE_CHECK_CUDA(cudaEventRecord(events[2 * i + 1], stream));
  }
  EPIFUSE_CHECK_CUDA(cudaEventSynchronize(events.back()));
  EPIFUSE_CHECK_CUDA(cudaGetLastError());
  std::vector<float> ms(iters);
  for (int i = 0; i < iters; ++i) EPIFUSE_CHECK_CUDA(cudaEventElapsedTime(&ms[i], events[2 * i], events[2 * i + 1]));
  for (cudaEvent_t& e : events) cudaEventDestroy(e);

  std::sort(ms.begin(), ms.end());
  return {percentile(ms, 0.5), percentile(ms, 0.1), percentile(ms, 0.9), iters};
}

}  // namespace epifuse::bench

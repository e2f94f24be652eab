#include "bench/harness/timing.hpp"

#include <algorithm>
#include <cmath>
#include <memory>
#include <numeric>
#include <random>

#include "testing/device_buffer.hpp"

namespace epifuse::bench {
namespace {

double percentile_us(const std::vector<float>& sorted_ms, double p) {
  const double pos = p * (sorted_ms.size() - 1);
  const auto lo = static_cast<std::size_t>(std::floor(pos));
  const auto hi = std::min(lo + 1, sorted_ms.size() - 1);
  return 1000.0 * (sorted_ms[lo] + (pos - lo) * (sorted_ms[hi] - sorted_ms[lo]));
}

// Milliseconds per run of `launch`, after a warm-up (module load, first touch, clock ramp).
float estimate_ms(const Launch& launch, cudaStream_t stream) {
  cudaEvent_t start, stop;
  EPIFUSE_CHECK_CUDA(cudaEventCreate(&start));
  EPIFUSE_CHECK_CUDA(cudaEventCreate(&stop));
  for (int i = 0; i < 3; ++i) launch(i, stream);
  constexpr int kRuns = 5;
  EPIFUSE_CHECK_CUDA(cudaEventRecord(start, stream));
  for (int i = 0; i < kRuns; ++i) launch(i, stream);
  EPIFUSE_CHECK_CUDA(cudaEventRecord(stop, stream));
  EPIFUSE_CHECK_CUDA(cudaEventSynchronize(stop));
  float ms = 0;
  EPIFUSE_CHECK_CUDA(cudaEventElapsedTime(&ms, start, stop));
  cudaEventDestroy(start);
  cudaEventDestroy(stop);
  return std::max(ms / kRuns, 1e-4f);
}

// `launch` captured once per operand set; running it replays the set's graph. Each graph is
// launched once here: a graph's first launch uploads it, which took tens of µs in the timed runs
// of 5-µs calls whose sets were many.
class GraphedLaunch {
 public:
  GraphedLaunch(const Launch& launch, int operand_sets, cudaStream_t stream) : execs_(std::max(operand_sets, 1)) {
    for (std::size_t set = 0; set < execs_.size(); ++set) {
      cudaGraph_t graph;
      EPIFUSE_CHECK_CUDA(cudaStreamBeginCapture(stream, cudaStreamCaptureModeThreadLocal));
      launch(static_cast<int>(set), stream);
      EPIFUSE_CHECK_CUDA(cudaStreamEndCapture(stream, &graph));
      EPIFUSE_CHECK_CUDA(cudaGraphInstantiate(&execs_[set], graph, 0));
      EPIFUSE_CHECK_CUDA(cudaGraphDestroy(graph));
      EPIFUSE_CHECK_CUDA(cudaGraphLaunch(execs_[set], stream));
    }
    EPIFUSE_CHECK_CUDA(cudaStreamSynchronize(stream));
  }
  ~GraphedLaunch() {
    for (cudaGraphExec_t e : execs_) cudaGraphExecDestroy(e);
  }
  GraphedLaunch(const GraphedLaunch&) = delete;
  GraphedLaunch& operator=(const GraphedLaunch&) = delete;

  void operator()(int iteration, cudaStream_t stream) const {
    EPIFUSE_CHECK_CUDA(cudaGraphLaunch(execs_[iteration % execs_.size()], stream));
  }

 private:
  std::vector<cudaGraphExec_t> execs_;
};

}  // namespace

std::vector<Timing> time_interleaved(const std::vector<Launch>& raw_launches, const TimingOptions& options) {
  cudaStream_t stream;
  EPIFUSE_CHECK_CUDA(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
  std::vector<std::shared_ptr<GraphedLaunch>> graphs;
  std::vector<Launch> launches = raw_launches;
  if (options.graphs) {
    for (Launch& launch : launches) {
      auto graphed = std::make_shared<GraphedLaunch>(launch, options.operand_sets, stream);
      graphs.push_back(graphed);
      launch = [graphed](int i, cudaStream_t s) { (*graphed)(i, s); };
    }
  }
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
      launches[i](iteration[i]++, stream);  // untimed: absorbs the switch from the previous implementation
      for (int k = 0; k < per_round[i]; ++k) {
        cudaEvent_t start, stop;
        EPIFUSE_CHECK_CUDA(cudaEventCreate(&start));
        EPIFUSE_CHECK_CUDA(cudaEventCreate(&stop));
        EPIFUSE_CHECK_CUDA(cudaEventRecord(start, stream));
        launches[i](iteration[i]++, stream);
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
  graphs.clear();
  EPIFUSE_CHECK_CUDA(cudaStreamDestroy(stream));
  return timings;
}

}  // namespace epifuse::bench

// Whether a gated call's first-launch timing (src/delegate/candidate_timing.hpp) ranks tilings as a
// busy GPU runs them. The first launch times its ways right after the host prepared the call, on a
// GPU that may have idled; the bench, like a model's forward pass, keeps it busy. Compute-bound
// calls run slower once a busy H200 lowers its clock, and not every tiling by as much
// (bench/results/tuning/issue9/busy-gpu-timing/). For each case, a set of forced tilings on one
// shape (random bf16 operands, SwiGLU), timed under two regimes:
//   first    the host sleeps --idle-ms, the tilings run untimed for W ms (W from --warmups), then
//            an approximation of the first launch's pattern: per tiling an untimed run and 3 timed
//            ones, then again in reverse order; the median of the 6 per tiling. Unlike the
//            library it has no sizing pass and no wait for the stream before the timed runs, does
//            not hold them behind a gate (calls here take 170-1400 us, far above a launch), and
//            times 3 runs per pass where the library times 2-5;
//   steady   300 ms untimed, then --rounds rounds of one run of each tiling in turn, as the bench
//            interleaves them; the median per tiling.
// Every regime runs three times. Prints median µs per tiling and its ratio to the first tiling.
//   epifuse-timing-regime-probe [--idle-ms MS] [--warmups W,W,...] [--rounds R] [MxNxK:KERNEL,KERNEL ...]
//   KERNEL: a gated kernel's name without its "sm90_gated_mlp_bf16_bf16_" prefix.
#include <algorithm>
#include <chrono>
#include <cinttypes>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include <cuda_runtime_api.h>

#include "epifuse/gated_mlp.hpp"
#include "testing/device_buffer.hpp"
#include "testing/gated_problem.hpp"
#include "testing/random.hpp"

namespace {

constexpr const char* kPrefix = "sm90_gated_mlp_bf16_bf16_";
constexpr double kSteadyWarmupMs = 300.0;

struct Case {
  std::int64_t M = 0, N = 0, K = 0;
  std::vector<std::string> kernels;
};

// Where the first launch's timing and the bench disagreed on H200
// (bench/results/tuning/issue9/timed-577-768/in-process-run158/): the unswapped pingpong 128x128
// against the swapped cooperative tiles at 812-813 tokens, and the tilings timed at 406 and 645.
const char* const kDefaultCases[] = {
    "812x14336x3584:pingpong_128x128x64_c1x2,swap_coop_128x224x64_c2x1",
    "813x29568x8192:pingpong_128x128x64_c1x2,swap_coop_128x224x64_c2x1,swap_coop_128x176x64_c2x1",
    "812x14336x4096:pingpong_128x128x64_c1x2,swap_coop_128x224x64_c2x1",
    "645x14336x4096:swap_pingpong_128x128x64_c1x2,swap_pingpong_128x112x64_c2x1,swap_coop_128x176x64_c2x1",
    "406x18944x3584:swap_coop_128x224x64_c2x1_streamk,swap_pingpong_128x112x64_c2x1",
};

Case parse_case(const std::string& text) {
  Case c;
  const auto colon = text.find(':');
  const int fields = std::sscanf(text.c_str(), "%" SCNd64 "x%" SCNd64 "x%" SCNd64, &c.M, &c.N, &c.K);
  if (colon == std::string::npos || fields != 3) {
    std::fprintf(stderr, "bad case '%s' (want MxNxK:KERNEL,KERNEL)\n", text.c_str());
    std::exit(2);
  }
  std::stringstream names(text.substr(colon + 1));
  for (std::string name; std::getline(names, name, ',');) c.kernels.push_back(kPrefix + name);
  return c;
}

std::vector<double> parse_list(const char* text) {
  std::vector<double> values;
  std::stringstream in(text);
  for (std::string v; std::getline(in, v, ',');) values.push_back(std::atof(v.c_str()));
  return values;
}

double median(std::vector<double> v) {
  std::nth_element(v.begin(), v.begin() + v.size() / 2, v.end());
  return v[v.size() / 2];
}

class Runner {
 public:
  Runner(const Case& c, cudaStream_t stream) : stream_(stream) {
    for (const std::string& kernel : c.kernels) {
      epifuse::testing::GatedCase spec;
      spec.M = c.M, spec.N = c.N, spec.K = c.K, spec.kernel = kernel;
      problems_.push_back(std::make_unique<epifuse::testing::GatedProblem>(spec, 20261129));
    }
    EPIFUSE_CHECK_CUDA(cudaEventCreate(&start_));
    EPIFUSE_CHECK_CUDA(cudaEventCreate(&end_));
    for (int i = 0; i < count(); ++i) one_us_.push_back(timed_us(i));
  }
  ~Runner() {
    for (cudaEvent_t e : events_) cudaEventDestroy(e);
    cudaEventDestroy(start_);
    cudaEventDestroy(end_);
  }

  int count() const { return static_cast<int>(problems_.size()); }

  void run(int i) {
    const epifuse::Status s = epifuse::gated_mlp(problems_[i]->args(), stream_);
    if (!s.ok()) {
      std::fprintf(stderr, "gated_mlp: %s\n", s.message().c_str());
      std::exit(1);
    }
  }

  // Runs the tilings in turn, untimed, for about `ms` of device time.
  void keep_busy(double ms) {
    double spent_us = 0.0;
    while (spent_us < 1000.0 * ms) {
      for (int i = 0; i < count(); ++i) {
        run(i);
        spent_us += one_us_[i];
      }
    }
  }

  // The first launch's pattern, approximately, after the GPU idled: per tiling medians of 6 timed runs.
  std::vector<double> first_launch(double idle_ms, double warmup_ms) {
    EPIFUSE_CHECK_CUDA(cudaStreamSynchronize(stream_));
    std::this_thread::sleep_for(std::chrono::duration<double, std::milli>(idle_ms));
    keep_busy(warmup_ms);
    std::vector<std::vector<int>> marks(count());
    for (int pass = 0; pass < 2; ++pass) {
      for (int n = 0; n < count(); ++n) {
        const int i = pass == 0 ? n : count() - 1 - n;
        run(i);
        for (int r = 0; r < 3; ++r) marks[i].push_back(record_run(i));
      }
    }
    return medians(marks);
  }

  // The bench's pattern on a busy GPU: one run of each tiling in turn, `rounds` times.
  std::vector<double> steady(int rounds) {
    keep_busy(kSteadyWarmupMs);
    std::vector<std::vector<int>> marks(count());
    for (int r = 0; r < rounds; ++r) {
      for (int i = 0; i < count(); ++i) marks[i].push_back(record_run(i));
    }
    return medians(marks);
  }

 private:
  double timed_us(int i) {
    run(i);
    EPIFUSE_CHECK_CUDA(cudaEventRecord(start_, stream_));
    run(i);
    EPIFUSE_CHECK_CUDA(cudaEventRecord(end_, stream_));
    EPIFUSE_CHECK_CUDA(cudaEventSynchronize(end_));
    float ms = 0.0f;
    EPIFUSE_CHECK_CUDA(cudaEventElapsedTime(&ms, start_, end_));
    return 1000.0 * ms;
  }

  // Enqueues a run between two fresh events; returns the first event's index.
  int record_run(int i) {
    const int at = static_cast<int>(events_.size());
    for (int e = 0; e < 2; ++e) {
      cudaEvent_t ev = nullptr;
      EPIFUSE_CHECK_CUDA(cudaEventCreate(&ev));
      events_.push_back(ev);
    }
    EPIFUSE_CHECK_CUDA(cudaEventRecord(events_[at], stream_));
    run(i);
    EPIFUSE_CHECK_CUDA(cudaEventRecord(events_[at + 1], stream_));
    return at;
  }

  std::vector<double> medians(const std::vector<std::vector<int>>& marks) {
    EPIFUSE_CHECK_CUDA(cudaStreamSynchronize(stream_));
    std::vector<double> out;
    for (const std::vector<int>& runs : marks) {
      std::vector<double> us;
      for (int at : runs) {
        float ms = 0.0f;
        EPIFUSE_CHECK_CUDA(cudaEventElapsedTime(&ms, events_[at], events_[at + 1]));
        us.push_back(1000.0 * ms);
      }
      out.push_back(median(us));
    }
    for (cudaEvent_t e : events_) cudaEventDestroy(e);
    events_.clear();
    return out;
  }

  cudaStream_t stream_;
  std::vector<std::unique_ptr<epifuse::testing::GatedProblem>> problems_;
  std::vector<double> one_us_;
  std::vector<cudaEvent_t> events_;
  cudaEvent_t start_ = nullptr, end_ = nullptr;
};

void print(const Case& c, const char* regime, const std::vector<double>& us) {
  std::printf("%" PRId64 "x%" PRId64 "x%" PRId64 " %-14s", c.M, c.N, c.K, regime);
  for (std::size_t i = 0; i < us.size(); ++i) {
    std::printf("  %s %.1f us (%.3f)", c.kernels[i].c_str() + std::string(kPrefix).size(), us[i], us[i] / us[0]);
  }
  std::printf("\n");
  std::fflush(stdout);
}

}  // namespace

int main(int argc, char** argv) {
  double idle_ms = 300.0;
  std::vector<double> warmups = {0.0, 10.0, 30.0, 100.0};
  int rounds = 30;
  std::vector<Case> cases;
  for (int a = 1; a < argc; ++a) {
    const std::string arg = argv[a];
    if (arg == "--idle-ms" && a + 1 < argc) {
      idle_ms = std::atof(argv[++a]);
    } else if (arg == "--warmups" && a + 1 < argc) {
      warmups = parse_list(argv[++a]);
    } else if (arg == "--rounds" && a + 1 < argc) {
      rounds = std::max(1, std::atoi(argv[++a]));
    } else {
      cases.push_back(parse_case(arg));
    }
  }
  if (cases.empty()) {
    for (const char* text : kDefaultCases) cases.push_back(parse_case(text));
  }
  std::string why;
  if (!epifuse::testing::hopper_available(&why)) {
    std::printf("epifuse-timing-regime-probe: skipped: %s\n", why.c_str());
    return 0;
  }
  cudaStream_t stream = nullptr;
  EPIFUSE_CHECK_CUDA(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
  for (const Case& c : cases) {
    Runner runner(c, stream);
    for (int repeat = 0; repeat < 3; ++repeat) {
      for (double w : warmups) {
        char regime[32];
        std::snprintf(regime, sizeof(regime), "first+%.0fms", w);
        print(c, regime, runner.first_launch(idle_ms, w));
      }
      print(c, "steady", runner.steady(rounds));
    }
  }
  cudaStreamDestroy(stream);
  return 0;
}

// The implementations a suite compares on one shape: each row with its launch, timed together
// (interleaved), each row's timing, TFLOP/s and GB/s filled in.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "bench/harness/results.hpp"
#include "bench/harness/timing.hpp"

namespace epifuse::bench {

struct Contender {
  Row row;
  Launch launch;
};

// Times every contender interleaved; returns each impl's median µs.
inline std::map<std::string, double> time_contenders(std::vector<Contender>* contenders, const TimingOptions& options) {
  std::vector<Launch> launches;
  for (const Contender& c : *contenders) launches.push_back(c.launch);
  const std::vector<Timing> timings = time_interleaved(launches, options);
  std::map<std::string, double> us;
  for (std::size_t i = 0; i < contenders->size(); ++i) {
    Row& r = (*contenders)[i].row;
    r.timing = timings[i];
    us[r.impl] = timings[i].median_us;
    r.extra["tflops"] = r.flops / (timings[i].median_us * 1e6);
    r.extra["gbps"] = r.bytes / (timings[i].median_us * 1e3);
  }
  return us;
}

}  // namespace epifuse::bench

// What a result row must say about where and when it was measured.
#pragma once

#include <cstddef>
#include <string>

namespace epifuse::bench {

struct DeviceFacts {
  std::string gpu;         // "NVIDIA H100 80GB HBM3"
  std::string driver;      // "580.159.04" (NVML), else the CUDA driver API version
  std::string cuda;        // runtime and cuBLASLt versions
  int sm_count = 0;
  std::size_t l2_bytes = 0;
  std::size_t memory_bytes = 0;
  int sm_clock_mhz = 0;    // at the time of the query (NVML), 0 if unknown
  int sm_clock_max_mhz = 0;
  int mem_clock_mhz = 0;
  int cc_major = 0, cc_minor = 0;
};

// Facts of device 0; `ok` false (and `why` set) when no CUDA device is usable.
DeviceFacts query_device(bool* ok, std::string* why);

// Current SM clock in MHz via NVML, 0 if unknown (re-read after a suite to show throttling).
int current_sm_clock_mhz();

std::string git_commit();   // $EPIFUSE_COMMIT, else the commit the build was configured at
std::string utc_now_iso();  // 2026-11-21T10:49:00Z

}  // namespace epifuse::bench

// The device's measured ceilings, the denominators of every "% of roofline".
#pragma once

namespace epifuse::bench {

struct Ceilings {
  double copy_gbps = 0;        // device-to-device copy, bytes read + written
  double read_gbps = 0;        // streaming read of a buffer far larger than L2
  double bf16_tflops = 0;      // cuBLASLt bf16 → bf16, fp32 accumulate: best of 8192³ and 16384³
};

Ceilings measure_ceilings();

// Roofline floor of a kernel: max(flops / peak, bytes / copy bandwidth), in microseconds.
double roofline_floor_us(const Ceilings& c, double flops, double bytes);

// How close a call of `us` microseconds comes to reading `weight_bytes` at the streaming-read
// bandwidth, in percent: the decode measure (a call at few tokens can at best stream its weight).
double pct_of_read_bw(const Ceilings& c, double weight_bytes, double us);

}  // namespace epifuse::bench

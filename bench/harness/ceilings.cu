#include "bench/harness/ceilings.hpp"

#include <algorithm>

#include "bench/baselines/cublaslt_gemm.hpp"
#include "bench/harness/stream_read.cuh"
#include "bench/harness/timing.hpp"
#include "testing/device_buffer.hpp"
#include "testing/random.hpp"

namespace epifuse::bench {
namespace {

constexpr std::size_t kStreamBytes = std::size_t{2} << 30;  // 2 GiB: far past any L2
constexpr std::int64_t kPeakSizes[] = {8192, 16384};

}  // namespace

Ceilings measure_ceilings() {
  Ceilings c;
  {
    testing::DeviceBuffer src(kStreamBytes, 0), dst(kStreamBytes, 0), sink(4096 * sizeof(unsigned), 0);
    const Timing copy = time_interleaved(
        {[&](int, cudaStream_t stream) {
          EPIFUSE_CHECK_CUDA(cudaMemcpyAsync(dst.data(), src.data(), kStreamBytes, cudaMemcpyDeviceToDevice, stream));
        }},
        {200.0, 4, 3, 30})[0];
    c.copy_gbps = 2.0 * kStreamBytes / (copy.median_us * 1e3);

    int sms = 0;
    cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0);
    const int blocks = std::min(sms * 8, 4096);
    const Timing read = time_interleaved(
        {[&](int, cudaStream_t stream) {
          stream_read_kernel<<<blocks, 256, 0, stream>>>(src.as<const uint4>(), kStreamBytes / sizeof(uint4), sink.as<unsigned>());
        }},
        {200.0, 4, 3, 30})[0];
    c.read_gbps = kStreamBytes / (read.median_us * 1e3);
  }
  // The best cuBLASLt rate over two large squares: the ceiling no bf16 GEMM here is expected to pass.
  for (const std::int64_t n : kPeakSizes) {
    testing::DeviceBuffer a(n * n * 2, 0), b(n * n * 2, 0), d(n * n * 2, 0);
    testing::fill_uniform(a.data(), DType::kBF16, n, n, n, 1, -1.0f, 1.0f);
    testing::fill_uniform(b.data(), DType::kBF16, n, n, n, 2, -1.0f, 1.0f);
    CublasLtGemm gemm(n, n, n, DType::kBF16, DType::kBF16, LtEpilogue::kNone);
    gemm.autotune(a.data(), b.data(), d.data(), nullptr);
    const Timing t =
        time_interleaved({[&](int, cudaStream_t stream) { gemm.run(a.data(), b.data(), d.data(), nullptr, stream); }})[0];
    c.bf16_tflops = std::max(c.bf16_tflops, 2.0 * n * n * n / (t.median_us * 1e6));
  }
  return c;
}

double roofline_floor_us(const Ceilings& c, double flops, double bytes) {
  return std::max(flops / (c.bf16_tflops * 1e6), bytes / (c.copy_gbps * 1e3));
}

double pct_of_read_bw(const Ceilings& c, double weight_bytes, double us) {
  return 100.0 * (weight_bytes / (us * 1e3)) / c.read_gbps;
}

}  // namespace epifuse::bench

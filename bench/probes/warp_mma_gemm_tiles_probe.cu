// Probe: the warp-mma GEMM kernel (kernels/sm90/warp_mma_gemm_kernel.cuh) under other shapes of
// its CTA than the compiled ones — warps, k steps in flight, 16-row blocks per CTA (which share one
// load of x), one or two token tiles — at each cluster size, against a plain read of the same weight
// bytes. Per shape (N: output width, K) and token count it prints each configuration's best µs and %
// of the streaming-read bandwidth (a 2 GiB read measured at start), with its cluster size and CTA
// waves. Weights are rotated past L2. Each launch is a CUDA graph of one kernel timed alone with
// events (as the bench times decode calls), in interleaved rounds: the median of 15 rounds of 20.
// Every configuration's output is compared with the first one's before timing.
//
//   epifuse-warp-mma-tiles-probe [--tokens M,M,...] [NxK ...]     (default tokens 1, 8, 16)
#include <cuda_bf16.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "bench/probes/warp_mma_probe_support.cuh"
#include "kernels/sm90/warp_mma_gemm_kernel.cuh"

namespace {

namespace probes = epifuse::bench::probes;
namespace warp_mma = epifuse::kernels::sm90::warp_mma;
using Element = __nv_bfloat16;
using Kernel = void (*)(const warp_mma::Mainloop, const warp_mma::GemmStore::Params);

struct Config {
  const char* name;
  int warps, groups, token_tiles;
  bool token_rows;  // rows of 8 x token_tiles tokens along the grid's y, each reading the weight again
  Kernel kernel;
};

template <int kWarps, int kUnroll, int kGroups, int kTokenTiles, bool kTokenRows = false>
Config config(const char* name) {
  return {name, kWarps, kGroups, kTokenTiles, kTokenRows,
          &warp_mma::kernel<Element, kWarps, kUnroll, kGroups, kTokenTiles, warp_mma::GemmStore, kTokenRows>};
}

// The compiled ones first (one token tile: wide 8 warps, singles 4; two: the rows kernel's one
// block with two steps, and two blocks of 8 or 4 warps with one), then others: two blocks at one
// token tile, at two the singles with two steps and the pairs with two, one token tile in rows of
// 8 tokens, and at one token tile twice the bytes in flight per CTA (16 warps, or 8 steps a warp).
std::vector<Config> configs() {
  return {config<8, 4, 1, 1>("w8 u4 g1 t1 (wide)"),  config<4, 4, 1, 1>("w4 u4 g1 t1 (singles)"),
          config<8, 2, 2, 1>("w8 u2 g2 t1"),         config<4, 2, 2, 1>("w4 u2 g2 t1"),
          config<8, 2, 1, 2>("w8 u2 g1 t2 (one block)"), config<8, 1, 2, 2>("w8 u1 g2 t2 (wide pairs)"),
          config<4, 1, 2, 2>("w4 u1 g2 t2 (pairs)"), config<4, 2, 1, 2>("w4 u2 g1 t2"),
          config<4, 2, 2, 2>("w4 u2 g2 t2"),         config<8, 4, 1, 1, true>("w8 u4 g1 t1 rows"),
          config<4, 4, 1, 1, true>("w4 u4 g1 t1 rows"), config<4, 2, 1, 1, true>("w4 u2 g1 t1 rows"),
          config<16, 4, 1, 1>("w16 u4 g1 t1"),       config<8, 8, 1, 1>("w8 u8 g1 t1")};
}

// One graph per weight copy, each holding one launch; the median of `reps` launches each timed
// alone.
struct GraphTimer {
  std::vector<cudaGraphExec_t> graphs;
  cudaStream_t stream = nullptr;
  cudaEvent_t start = nullptr, stop = nullptr;

  GraphTimer(const std::function<void(int, cudaStream_t)>& launch, int copies) {
    PROBE_CHECK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
    PROBE_CHECK(cudaEventCreate(&start));
    PROBE_CHECK(cudaEventCreate(&stop));
    for (int c = 0; c < copies; ++c) {
      cudaGraph_t graph;
      PROBE_CHECK(cudaStreamBeginCapture(stream, cudaStreamCaptureModeThreadLocal));
      launch(c, stream);
      PROBE_CHECK(cudaStreamEndCapture(stream, &graph));
      cudaGraphExec_t exec;
      PROBE_CHECK(cudaGraphInstantiate(&exec, graph, 0));
      PROBE_CHECK(cudaGraphDestroy(graph));
      graphs.push_back(exec);
    }
  }
  ~GraphTimer() {
    for (auto g : graphs) cudaGraphExecDestroy(g);
    cudaEventDestroy(start);
    cudaEventDestroy(stop);
    cudaStreamDestroy(stream);
  }
  double median_us(int reps, int first) {
    std::vector<double> t;
    for (int r = 0; r < reps; ++r) {
      PROBE_CHECK(cudaEventRecord(start, stream));
      PROBE_CHECK(cudaGraphLaunch(graphs[(first + r) % graphs.size()], stream));
      PROBE_CHECK(cudaEventRecord(stop, stream));
      PROBE_CHECK(cudaEventSynchronize(stop));
      float ms = 0.0f;
      PROBE_CHECK(cudaEventElapsedTime(&ms, start, stop));
      t.push_back(ms * 1000.0);
    }
    std::sort(t.begin(), t.end());
    return t[t.size() / 2];
  }
};

cudaError_t launch(const Config& c, const warp_mma::Mainloop& p, const warp_mma::GemmStore::Params& store,
                   std::int64_t blocks, int splits, cudaStream_t stream) {
  const int row_tokens = warp_mma::kTokens * c.token_tiles;
  cudaLaunchConfig_t lc = {};
  lc.stream = stream;
  lc.gridDim = dim3(static_cast<unsigned>((blocks + c.groups - 1) / c.groups * splits),
                    c.token_rows ? static_cast<unsigned>((p.M + row_tokens - 1) / row_tokens) : 1u);
  lc.blockDim = dim3(c.warps * 32);
  cudaLaunchAttribute cluster[1];
  cluster[0].id = cudaLaunchAttributeClusterDimension;
  cluster[0].val.clusterDim.x = static_cast<unsigned>(splits);
  cluster[0].val.clusterDim.y = 1;
  cluster[0].val.clusterDim.z = 1;
  lc.attrs = cluster;
  lc.numAttrs = 1;
  return cudaLaunchKernelEx(&lc, c.kernel, p, store);
}

}  // namespace

int main(int argc, char** argv) {
  std::vector<std::pair<long, long>> shapes;
  std::vector<int> token_counts = {1, 8, 16};
  for (int i = 1; i < argc; ++i) {
    if (std::string(argv[i]) == "--tokens" && i + 1 < argc) {
      token_counts.clear();
      for (const char* p = argv[++i]; *p != '\0';) {
        char* end = nullptr;
        token_counts.push_back(static_cast<int>(std::strtol(p, &end, 10)));
        if (end == p || token_counts.back() < 1 || token_counts.back() > 16) {
          std::fprintf(stderr, "--tokens: counts of 1-16 separated by commas\n");
          return 2;
        }
        p = *end == ',' ? end + 1 : end;
      }
      continue;
    }
    if (!probes::parse_shape(argv[i], 64, 64, &shapes)) {
      std::fprintf(stderr, "usage: %s [--tokens M,M,...] [NxK ...]  (N and K multiples of 64)\n", argv[0]);
      return 2;
    }
  }
  if (shapes.empty()) {
    shapes = {{4096, 4096},  {4608, 3584},  {6144, 4096},  {2048, 8192}, {3584, 14336},
              {4096, 14336}, {8192, 8192},  {10240, 8192}, {5120, 17920}, {8192, 28672}};
  }
  const probes::ProbeDevice device = probes::probe_device();
  const int sms = device.sms, read_blocks = device.read_blocks;
  const double read_gbps = device.read_gbps;
  unsigned* sink = device.sink;
  const cudaDeviceProp& prop = device.prop;
  const std::vector<Config> all = configs();
  std::vector<int> resident(all.size());
  std::printf("%s, %d SMs, read bandwidth %.0f GB/s\n", prop.name, sms, read_gbps);
  for (std::size_t i = 0; i < all.size(); ++i) {
    PROBE_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&resident[i], all[i].kernel, all[i].warps * 32, 0));
    cudaFuncAttributes attr{};
    PROBE_CHECK(cudaFuncGetAttributes(&attr, all[i].kernel));
    std::printf("  %-24s %3d registers, %d CTAs per SM\n", all[i].name, attr.numRegs, resident[i]);
  }

  for (const auto& shape : shapes) {
    const long N = shape.first, K = shape.second;
    const std::size_t weight_bytes = std::size_t{2} * N * K;
    const int copies = static_cast<int>(std::max<std::size_t>(2, (std::size_t{400} << 20) / weight_bytes + 1));
    std::vector<Element*> weights(copies);
    for (auto*& w : weights) {
      PROBE_CHECK(cudaMalloc(&w, weight_bytes));
      probes::fill<<<1024, 256>>>(w, weight_bytes / 2, 7);
    }
    Element *x = nullptr, *out = nullptr;
    PROBE_CHECK(cudaMalloc(&x, std::size_t{16} * K * 2));
    PROBE_CHECK(cudaMalloc(&out, std::size_t{16} * N * 2));
    probes::fill<<<64, 256>>>(x, std::size_t{16} * K, 11);
    const std::int64_t blocks = N / warp_mma::kBlockRows;
    const std::int64_t steps = K / warp_mma::kStepK;
    for (int M : token_counts) {
      struct Entry {
        std::string label;
        std::size_t config;
        std::function<void(int, cudaStream_t)> run;
      };
      std::vector<Entry> entries;
      for (std::size_t ci = 0; ci < all.size(); ++ci) {
        const Config& c = all[ci];
        if (c.token_rows ? M <= warp_mma::kTokens * c.token_tiles : M > warp_mma::kTokens * c.token_tiles) continue;
        const std::int64_t ctas = (blocks + c.groups - 1) / c.groups;
        for (int splits : {1, 2, 4, 8}) {
          const int row_tokens = warp_mma::kTokens * c.token_tiles;
          const int rows_y = c.token_rows ? (M + row_tokens - 1) / row_tokens : 1;
          const double waves = static_cast<double>(ctas * splits * rows_y) / (resident[ci] * sms);
          if (splits > 1 && waves > 2.0) continue;
          char label[96];
          std::snprintf(label, sizeof label, "%-24s splits %d (%.2f waves)", c.name, splits, waves);
          entries.push_back({label, ci, [&, ci, splits, M](int r, cudaStream_t stream) {
                               const warp_mma::Mainloop p{x, K, M, weights[r % copies], K, K, N,
                                                          (steps + splits - 1) / splits};
                               const warp_mma::GemmStore::Params store{1.0f, nullptr, {}, out, N, N};
                               PROBE_CHECK(launch(all[ci], p, store, blocks, splits, stream));
                             }});
        }
      }
      // Each configuration's output against the first one's (the same fp32 sums in another order).
      std::vector<Element> reference(static_cast<std::size_t>(M) * N), got(reference.size());
      double worst = 0.0;
      for (std::size_t e = 0; e < entries.size(); ++e) {
        PROBE_CHECK(cudaMemset(out, 0xff, std::size_t{16} * N * 2));
        entries[e].run(0, nullptr);
        PROBE_CHECK(cudaDeviceSynchronize());
        PROBE_CHECK(cudaMemcpy(e == 0 ? reference.data() : got.data(), out, reference.size() * 2,
                               cudaMemcpyDeviceToHost));
        if (e == 0) continue;
        for (std::size_t i = 0; i < got.size(); ++i) {
          const double a = __bfloat162float(reference[i]), b = __bfloat162float(got[i]);
          worst = std::max(worst, std::isfinite(b) ? std::abs(a - b) / (std::abs(a) + 1e-2) : 1e30);
        }
      }
      std::vector<std::unique_ptr<GraphTimer>> timers;
      for (const Entry& e : entries) timers.push_back(std::make_unique<GraphTimer>(e.run, copies));
      GraphTimer read(
          [&](int r, cudaStream_t stream) {
            epifuse::bench::stream_read_kernel<<<read_blocks, 256, 0, stream>>>(
                reinterpret_cast<const uint4*>(weights[r % copies]), weight_bytes / 16, sink);
          },
          copies);
      std::vector<std::vector<double>> t(entries.size());
      std::vector<double> read_t;
      for (int round = 0; round < 15; ++round) {
        for (std::size_t e = 0; e < entries.size(); ++e) t[e].push_back(timers[e]->median_us(20, round));
        read_t.push_back(read.median_us(20, round));
      }
      std::sort(read_t.begin(), read_t.end());
      std::printf("M=%d N=%ld K=%ld weight %.1f MB, outputs within %.3g of the first configuration's%s\n", M, N, K,
                  weight_bytes / 1e6, worst, worst > 0.02 ? "  MISMATCH" : "");
      // Per configuration its best cluster size; every size in the detail lines.
      std::vector<double> best(all.size(), 1e30);
      std::vector<std::string> best_label(all.size());
      for (std::size_t e = 0; e < entries.size(); ++e) {
        std::sort(t[e].begin(), t[e].end());
        const double us = t[e][t[e].size() / 2];
        std::printf("    %8.2f us %5.1f %%  %s\n", us, 100.0 * weight_bytes / (us * 1e3) / read_gbps,
                    entries[e].label.c_str());
        if (us < best[entries[e].config]) best[entries[e].config] = us, best_label[entries[e].config] = entries[e].label;
      }
      for (std::size_t ci = 0; ci < all.size(); ++ci) {
        if (best[ci] < 1e29) {
          std::printf("  best %8.2f us %5.1f %%  %s\n", best[ci], 100.0 * weight_bytes / (best[ci] * 1e3) / read_gbps,
                      best_label[ci].c_str());
        }
      }
      const double read_us = read_t[read_t.size() / 2];
      std::printf("  read %8.2f us %5.1f %%  read kernel, same bytes\n", read_us,
                  100.0 * weight_bytes / (read_us * 1e3) / read_gbps);
      if (worst > 0.02) return 1;
    }
    for (auto* w : weights) cudaFree(w);
    cudaFree(x);
    cudaFree(out);
  }
  cudaFree(sink);
  return 0;
}

// Probe: the warp-mma gated kernel's CTA variants (kernels/sm90/warp_mma_gated_kernel.cuh) at each
// cluster size, against a plain read of the same weight bytes, for the variant rule there. Per
// shape (N: output width, K) and token count it prints µs and % of the streaming-read bandwidth
// (a 2 GiB read measured at start), the variant choose_variant picks, and the CTA waves of each;
// beside them the persistent kernels of warp_mma_stream.cuh (an experiment: each CTA shape with 2,
// 3, 4 and 6 steps in flight per warp) and gated_mlp as dispatched. Weights are rotated past L2;
// interleaved rounds, median of 15 of 20 launches each. Operands hold small random values; the
// only check is that each persistent kernel's output equals its register twin's bit for bit, on
// weights the variant rule runs in one K-loop share (the GPU suite checks the library's kernels).
//
//   epifuse-warp-mma-probe [NxK ...]     (default: eight models' MLPs and two narrow weights)
#include <cuda_bf16.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <string>
#include <vector>

#include "bench/probes/warp_mma_probe_support.cuh"
#include "bench/probes/warp_mma_stream.cuh"
#include "epifuse/gated_mlp.hpp"
#include "kernels/sm90/warp_mma_gated_kernel.cuh"

namespace {

namespace probes = epifuse::bench::probes;
using epifuse::kernels::sm90::warp_mma::Variant;
namespace warp_mma = epifuse::kernels::sm90::warp_mma;

const char* variant_name(Variant v) {
  switch (v) {
    case Variant::kWide: return "wide";
    case Variant::kWidePairs: return "wide pairs";
    case Variant::kPairs: return "pairs";
    case Variant::kSingles: return "singles";
  }
  return "?";
}

template <Variant v>
cudaError_t stream_of_stages(int stages, const warp_mma::Mainloop& p, const warp_mma::GatedStore::Params& store,
                             std::int64_t blocks, int sms) {
  using probes::warp_mma_stream::launch_stream;
  using Store = warp_mma::GatedStore;
  switch (stages) {
    case 2: return launch_stream<__nv_bfloat16, v, Store, 2>(p, store, blocks, sms, nullptr);
    case 3: return launch_stream<__nv_bfloat16, v, Store, 3>(p, store, blocks, sms, nullptr);
    case 4: return launch_stream<__nv_bfloat16, v, Store, 4>(p, store, blocks, sms, nullptr);
    default: return launch_stream<__nv_bfloat16, v, Store, 6>(p, store, blocks, sms, nullptr);
  }
}

cudaError_t launch_stream_of(Variant v, int stages, const warp_mma::Mainloop& p,
                             const warp_mma::GatedStore::Params& store, std::int64_t blocks, int sms) {
  switch (v) {
    case Variant::kWide: return stream_of_stages<Variant::kWide>(stages, p, store, blocks, sms);
    case Variant::kPairs: return stream_of_stages<Variant::kPairs>(stages, p, store, blocks, sms);
    default: return stream_of_stages<Variant::kSingles>(stages, p, store, blocks, sms);
  }
}

}  // namespace

int main(int argc, char** argv) {
  std::vector<std::pair<long, long>> shapes;
  for (int i = 1; i < argc; ++i) {
    if (!probes::parse_shape(argv[i], 16, 8, &shapes)) {
      std::fprintf(stderr, "usage: %s [NxK ...]  (N a multiple of 16, K of 8)\n", argv[0]);
      return 2;
    }
  }
  if (shapes.empty()) {
    shapes = {{8192, 2048},  {8192, 3072},  {9728, 2560},  {18944, 3584}, {14336, 4096},
              {14336, 3584}, {17920, 5120}, {28672, 8192}, {512, 29952},  {1024, 16384}};
  }
  const probes::ProbeDevice device = probes::probe_device();
  constexpr std::size_t kWorkspaceBytes = std::size_t{64} << 20;
  void* workspace = nullptr;
  PROBE_CHECK(cudaMalloc(&workspace, kWorkspaceBytes));
  const int sms = device.sms, read_blocks = device.read_blocks;
  const double read_gbps = device.read_gbps;
  unsigned* sink = device.sink;
  const cudaDeviceProp& prop = device.prop;
  const int resident[] = {warp_mma::resident_ctas_per_sm<__nv_bfloat16, Variant::kWide, warp_mma::GatedStore>(),
                          warp_mma::resident_ctas_per_sm<__nv_bfloat16, Variant::kPairs, warp_mma::GatedStore>(),
                          warp_mma::resident_ctas_per_sm<__nv_bfloat16, Variant::kSingles, warp_mma::GatedStore>()};
  std::printf("%s, %d SMs, read bandwidth %.0f GB/s; resident CTAs per SM: wide %d, pairs %d, singles %d\n", prop.name,
              sms, read_gbps, resident[0], resident[1], resident[2]);

  for (const auto& shape : shapes) {
    const long N = shape.first, K = shape.second;
    const std::size_t weight_bytes = std::size_t{4} * N * K;
    const int copies = static_cast<int>(std::max<std::size_t>(2, (std::size_t{400} << 20) / weight_bytes + 1));
    std::vector<__nv_bfloat16*> weights(copies);
    for (auto*& w : weights) {
      PROBE_CHECK(cudaMalloc(&w, weight_bytes));
      probes::fill<<<1024, 256>>>(w, weight_bytes / 2, 7);
    }
    __nv_bfloat16 *x = nullptr, *out = nullptr;
    PROBE_CHECK(cudaMalloc(&x, 8 * K * 2));
    PROBE_CHECK(cudaMalloc(&out, 8 * N * 2));
    probes::fill<<<64, 256>>>(x, 8 * K, 11);
    const std::int64_t blocks = N / 8;
    int rule_splits = 1;
    while (rule_splits < warp_mma::kMaxSplits && blocks * rule_splits < 3 * sms) rule_splits *= 2;
    for (int M : {1, 8}) {
      std::vector<std::string> names;
      std::vector<std::function<void(int)>> launches;
      for (int splits : {1, 2, 4, 8}) {
        if (splits != 1 && splits != rule_splits && splits != 2 * rule_splits) continue;
        const std::int64_t steps = (K + warp_mma::kStepK - 1) / warp_mma::kStepK;
        for (Variant v : {Variant::kWide, Variant::kPairs, Variant::kSingles}) {
          const std::int64_t ctas = blocks / warp_mma::groups_of(v) * splits;
          const int resident_of_v = v == Variant::kWide ? resident[0] : v == Variant::kPairs ? resident[1] : resident[2];
          const double waves = static_cast<double>(ctas) / (resident_of_v * sms);
          char label[96];
          std::snprintf(label, sizeof label, "%-7s splits %d (%.2f waves)%s", variant_name(v), splits, waves,
                        v == warp_mma::choose_variant(blocks, splits, sms) && splits == rule_splits
                            ? "  <- dispatch"
                            : "");
          names.push_back(label);
          launches.push_back([&, v, splits, steps, M](int r) {
            const warp_mma::Mainloop p{x, K, M, weights[r % copies], K, K, 2 * N, (steps + splits - 1) / splits};
            const warp_mma::GatedStore::Params store{nullptr, out, N, {}};
            cudaError_t launched = cudaSuccess;
            switch (v) {
              case Variant::kWide: launched = warp_mma::launch<__nv_bfloat16, Variant::kWide, warp_mma::GatedStore>(p, store, blocks, splits, nullptr); break;
              case Variant::kPairs: launched = warp_mma::launch<__nv_bfloat16, Variant::kPairs, warp_mma::GatedStore>(p, store, blocks, splits, nullptr); break;
              case Variant::kSingles: launched = warp_mma::launch<__nv_bfloat16, Variant::kSingles, warp_mma::GatedStore>(p, store, blocks, splits, nullptr); break;
            }
            PROBE_CHECK(launched);
          });
        }
      }
      // The persistent kernels of warp_mma_stream.cuh (whole K per CTA).
      for (Variant v : {Variant::kWide, Variant::kPairs, Variant::kSingles}) {
        for (int stages : {2, 3, 4, 6}) {
          const std::int64_t steps = (K + warp_mma::kStepK - 1) / warp_mma::kStepK;
          char label[96];
          std::snprintf(label, sizeof label, "%-7s stream %d", variant_name(v), stages);
          names.push_back(label);
          launches.push_back([&, v, steps, M, stages](int r) {
            const warp_mma::Mainloop p{x, K, M, weights[r % copies], K, K, 2 * N, steps};
            const warp_mma::GatedStore::Params store{nullptr, out, N, {}};
            PROBE_CHECK(launch_stream_of(v, stages, p, store, blocks, sms));
          });
        }
      }
      names.push_back("gated_mlp as dispatched");
      launches.push_back([&, M](int r) {
        epifuse::GatedMlpArgs a;
        a.M = M;
        a.N = N;
        a.x = x;
        a.ldx = K;
        a.w = {weights[r % copies], K, nullptr, N, K, epifuse::DType::kBF16, epifuse::GateUpLayout::kGateUpBlocks8};
        a.out = out;
        a.ldo = N;
        a.workspace = workspace;
        a.workspace_bytes = kWorkspaceBytes;
        const epifuse::Status s = epifuse::gated_mlp(a, nullptr);
        if (!s.ok()) {
          std::fprintf(stderr, "gated_mlp: %s\n", s.to_string().c_str());
          std::exit(1);
        }
      });
      names.push_back("read kernel, same bytes");
      launches.push_back([&](int r) {
        epifuse::bench::stream_read_kernel<<<read_blocks, 256>>>(reinterpret_cast<const uint4*>(weights[r % copies]), weight_bytes / 16, sink);
      });
      for (auto& launch : launches) launch(0);
      PROBE_CHECK(cudaDeviceSynchronize());
      // Each persistent kernel sums in its register twin's order: the outputs must match bit for bit.
      // (Checked where the variant rule runs one K-loop share, as in the committed logs.)
      for (Variant v : {Variant::kWide, Variant::kPairs, Variant::kSingles}) {
        if (rule_splits != 1) continue;
        const std::int64_t steps = (K + warp_mma::kStepK - 1) / warp_mma::kStepK;
        const warp_mma::Mainloop p{x, K, M, weights[0], K, K, 2 * N, steps};
        const warp_mma::GatedStore::Params store{nullptr, out, N, {}};
        std::vector<unsigned short> want(M * N), got(M * N);
        PROBE_CHECK(cudaMemset(out, 0xff, M * N * 2));
        switch (v) {
          case Variant::kWide: PROBE_CHECK((warp_mma::launch<__nv_bfloat16, Variant::kWide, warp_mma::GatedStore>(p, store, blocks, 1, nullptr))); break;
          case Variant::kPairs: PROBE_CHECK((warp_mma::launch<__nv_bfloat16, Variant::kPairs, warp_mma::GatedStore>(p, store, blocks, 1, nullptr))); break;
          default: PROBE_CHECK((warp_mma::launch<__nv_bfloat16, Variant::kSingles, warp_mma::GatedStore>(p, store, blocks, 1, nullptr))); break;
        }
        PROBE_CHECK(cudaMemcpy(want.data(), out, M * N * 2, cudaMemcpyDeviceToHost));
        for (int stages : {2, 3, 4, 6}) {
          PROBE_CHECK(cudaMemset(out, 0xff, M * N * 2));
          PROBE_CHECK(launch_stream_of(v, stages, p, store, blocks, sms));
          PROBE_CHECK(cudaMemcpy(got.data(), out, M * N * 2, cudaMemcpyDeviceToHost));
          if (got != want) {
            std::printf("MISMATCH: %s stream %d differs from its register kernel at M=%d N=%ld K=%ld\n",
                        variant_name(v), stages, M, N, K);
            return 1;
          }
        }
      }
      std::vector<std::vector<double>> t(launches.size());
      for (int round = 0; round < 15; ++round) {
        for (std::size_t i = 0; i < launches.size(); ++i) t[i].push_back(probes::mean_us(launches[i], 20));
      }
      std::printf("M=%d N=%ld K=%ld weight %.1f MB\n", M, N, K, weight_bytes / 1e6);
      for (std::size_t i = 0; i < launches.size(); ++i) {
        std::sort(t[i].begin(), t[i].end());
        const double us = t[i][t[i].size() / 2];
        std::printf("  %8.2f us %5.1f %%  %s\n", us, 100.0 * weight_bytes / (us * 1e3) / read_gbps, names[i].c_str());
      }
    }
    for (auto* w : weights) cudaFree(w);
    cudaFree(x);
    cudaFree(out);
  }
  cudaFree(sink);
  cudaFree(workspace);
  return 0;
}

// Timing of the grouped gated MLP's kernels (issue 11) on MoE expert shapes: each token routed to
// k distinct of E experts (fixed seed), rows sorted by expert, under the three routings of
// bench/harness/moe_routing.hpp; the streaming-read bandwidth measured first (4 GiB, one pass);
// the grouped call dispatched (without and with moe_mlp's bound on an expert's rows), each grouped
// kernel forced, and a loop of the dense gated_mlp over the non-empty experts (one call each; the
// line names the dense kernel of the largest expert); per shape, 20 rounds timing each of them
// in turn, three calls queued back to back (--synced: one call after the GPU drains); CUDA events,
// medians. x and the weights hold random values (timing only;
// correctness is the GPU suite's): with a constant the tensor cores draw less power, and where
// the GPU is at its power limit compute-bound calls run faster than on real data. Prints one line
// per shape and implementation: median µs, the touched experts' weight bytes over that time, and
// that rate as a share of the measured read bandwidth. --down times the layer's grouped down GEMM
// ([rows, N] activations by each expert's [K, N] weight) the same way instead, without the loop.
//   epifuse-grouped-probe [--tokens T,T,...] [--rows-first] [--constant] [--down] [--synced]
//                         [--swizzles S,S] [--routing R] [--forced TILE] [model ...]
//   models: deepseek-v3 qwen2-57b mixtral qwen3-30b-a3b olmoe-1b-7b gpt-oss-20b mixtral-8x22b dbrx
//   llama4-scout (default: all);
//   tokens default 1,8,64,256,1024,4096;
//   --rows-first forces each kernel only under the raster order dispatch gives it;
//   --constant fills x and the weights with one value, as this probe did before (to compare);
//   --synced times each call alone after the GPU drains, as this probe did before (to compare);
//   --swizzles S,S also forces each gate/up kernel at its rows-first order with these tile
//   swizzles of the persistent scheduler (2, 4 or 8); --routing R times one routing only;
//   --forced TEXT forces only the gate/up kernels whose tile (as printed, e.g. 128x256) it names.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdint>
#include <cstring>
#include <cstdlib>
#include <functional>
#include <iterator>
#include <numeric>
#include <optional>
#include <string>
#include <vector>

#include <cuda_bf16.h>
#include <cuda_runtime_api.h>

#include "bench/harness/moe_routing.hpp"
#include "epifuse/grouped_gated_mlp.hpp"
#include "epifuse/grouped_gemm.hpp"
#include "epifuse/tuning.hpp"

namespace {

struct Model {
  const char* name;
  int experts, topk, N, K;
};
// The first three are the catalogue's; the others, not in it, check the rules away from the shapes
// they were fit on: narrow experts and wide ones (E, k, N, K from each model's config.json on
// huggingface.co: Qwen/Qwen3-30B-A3B, allenai/OLMoE-1B-7B-0924, openai/gpt-oss-20b,
// mistralai/Mixtral-8x22B-v0.1, databricks/dbrx-base, meta-llama/Llama-4-Scout-17B-16E).
constexpr Model kModels[] = {{"deepseek-v3", 256, 8, 2048, 7168},  {"qwen2-57b", 64, 8, 2560, 3584},
                             {"mixtral", 8, 2, 14336, 4096},       {"qwen3-30b-a3b", 128, 8, 768, 2048},
                             {"olmoe-1b-7b", 64, 8, 1024, 2048},   {"gpt-oss-20b", 32, 4, 2880, 2880},
                             {"mixtral-8x22b", 8, 2, 16384, 6144}, {"dbrx", 16, 4, 10752, 6144},
                             {"llama4-scout", 16, 1, 8192, 5120}};
constexpr int kDefaultTokens[] = {1, 8, 64, 256, 1024, 4096};
using epifuse::bench::kRoutings;
using epifuse::bench::Routing;
using epifuse::bench::to_string;
// Each grouped kernel is forced under every raster order of the persistent scheduler.
constexpr epifuse::RasterOrder kRasters[] = {epifuse::RasterOrder::kHeuristic, epifuse::RasterOrder::kAlongM,
                                             epifuse::RasterOrder::kAlongN};

void check(cudaError_t err, const char* what) {
  if (err != cudaSuccess) {
    std::fprintf(stderr, "%s: %s\n", what, cudaGetErrorString(err));
    std::exit(1);
  }
}

double median_us(const std::function<void()>& call, int reps = 20) {
  for (int i = 0; i < 3; ++i) call();
  cudaEvent_t a, b;
  check(cudaEventCreate(&a), "event");
  check(cudaEventCreate(&b), "event");
  std::vector<float> ms;
  for (int i = 0; i < reps; ++i) {
    check(cudaEventRecord(a), "record");
    call();
    check(cudaEventRecord(b), "record");
    check(cudaEventSynchronize(b), "sync");
    float t = 0;
    check(cudaEventElapsedTime(&t, a, b), "elapsed");
    ms.push_back(t);
  }
  cudaEventDestroy(a);
  cudaEventDestroy(b);
  std::sort(ms.begin(), ms.end());
  return ms[ms.size() / 2] * 1000.0;
}

// The median µs of each call over `reps` rounds, each round timing every call in turn, so that
// the GPU's clocks under its power limit (which follow the work before) bear on every call alike.
// Queued (the default): per round, each call once untimed, then three times, each between its own
// events, with no wait in between, as a model's layers run back to back. Synced (--synced): each
// call timed once after the GPU has drained, so the time also holds the host's part of the launch
// and the GPU's start from idle (this probe's timing until the queued one).
std::vector<double> interleaved_median_us(const std::vector<std::function<void()>>& calls, bool synced, int reps = 20) {
  for (const auto& call : calls) {
    for (int i = 0; i < 2; ++i) call();
  }
  const int timed = synced ? 1 : 3;
  std::vector<cudaEvent_t> events(2 * timed * calls.size());
  for (cudaEvent_t& e : events) check(cudaEventCreate(&e), "event");
  std::vector<std::vector<float>> ms(calls.size());
  for (int i = 0; i < reps; ++i) {
    for (std::size_t c = 0; c < calls.size(); ++c) {
      cudaEvent_t* pair = &events[2 * timed * c];
      if (synced) {
        check(cudaDeviceSynchronize(), "sync");
      } else {
        calls[c]();
      }
      for (int k = 0; k < timed; ++k) {
        check(cudaEventRecord(pair[2 * k]), "record");
        calls[c]();
        check(cudaEventRecord(pair[2 * k + 1]), "record");
      }
    }
    check(cudaDeviceSynchronize(), "sync");
    for (std::size_t c = 0; c < calls.size(); ++c) {
      for (int k = 0; k < timed; ++k) {
        float t = 0;
        check(cudaEventElapsedTime(&t, events[2 * (timed * c + k)], events[2 * (timed * c + k) + 1]), "elapsed");
        ms[c].push_back(t);
      }
    }
  }
  for (cudaEvent_t e : events) cudaEventDestroy(e);
  std::vector<double> medians;
  for (auto& m : ms) {
    std::sort(m.begin(), m.end());
    medians.push_back(m[m.size() / 2] * 1000.0);
  }
  return medians;
}

__global__ void read_all(const uint4* data, std::size_t n, unsigned* sink) {
  unsigned acc = 0;
  for (std::size_t i = blockIdx.x * std::size_t{blockDim.x} + threadIdx.x; i < n; i += std::size_t{gridDim.x} * blockDim.x) {
    const uint4 v = data[i];
    acc ^= v.x ^ v.y ^ v.z ^ v.w;
  }
  if (acc == 0x12345678u) *sink = acc;  // keeps the loads; never true for the fill below
}

// bf16 values uniform in [-scale, scale) from a hash of the index (or `constant` bits everywhere).
__global__ void fill(__nv_bfloat16* data, std::size_t n, std::uint32_t seed, float scale, bool constant) {
  for (std::size_t i = blockIdx.x * std::size_t{blockDim.x} + threadIdx.x; i < n; i += std::size_t{gridDim.x} * blockDim.x) {
    if (constant) {
      data[i] = __ushort_as_bfloat16(0x3C3C);
      continue;
    }
    std::uint32_t h = static_cast<std::uint32_t>(i) * 0x9E3779B1u ^ static_cast<std::uint32_t>(i >> 32) ^ seed;
    h ^= h >> 16;
    h *= 0x85EBCA6Bu;
    h ^= h >> 13;
    h *= 0xC2B2AE35u;
    h ^= h >> 16;
    data[i] = __float2bfloat16((static_cast<float>(h >> 8) * (1.0f / 16777216.0f) * 2.0f - 1.0f) * scale);
  }
}

void fill_buffer(void* data, std::size_t n, std::uint32_t seed, float scale, bool constant) {
  fill<<<1024, 256>>>(static_cast<__nv_bfloat16*>(data), n, seed, scale, constant);
  check(cudaGetLastError(), "fill");
}

// GB/s of one streaming read of 4 GiB, the median of 10.
double read_bandwidth_gbps() {
  const std::size_t bytes = std::size_t{4} << 30;
  void* buffer = nullptr;
  unsigned* sink = nullptr;
  check(cudaMalloc(&buffer, bytes), "read buffer");
  check(cudaMalloc(reinterpret_cast<void**>(&sink), sizeof(unsigned)), "sink");
  check(cudaMemset(buffer, 0x11, bytes), "read buffer");
  cudaDeviceProp prop;
  check(cudaGetDeviceProperties(&prop, 0), "device");
  const double us = median_us([&] {
    read_all<<<prop.multiProcessorCount * 8, 512>>>(static_cast<const uint4*>(buffer), bytes / 16, sink);
  }, 10);
  cudaFree(buffer);
  cudaFree(sink);
  return static_cast<double>(bytes) / us / 1e3;
}

// The raster order dispatch gives a grouped kernel (grouped_heuristics.cpp): along the rows.
epifuse::RasterOrder rows_first(const epifuse::KernelKey& k) {
  return k.swap_ab ? epifuse::RasterOrder::kAlongN : epifuse::RasterOrder::kAlongM;
}

std::vector<int> parse_tokens(const std::string& list) {
  std::vector<int> tokens;
  for (std::size_t start = 0; start < list.size();) {
    const std::size_t comma = std::min(list.find(',', start), list.size());
    tokens.push_back(std::atoi(list.substr(start, comma - start).c_str()));
    if (tokens.back() <= 0) {
      std::fprintf(stderr, "--tokens: '%s' is not a list of positive counts\n", list.c_str());
      std::exit(1);
    }
    start = comma + 1;
  }
  return tokens;
}

// The down GEMM of the layer over the same rows: [rows, N] by each expert's [K, N] (the first
// N·K elements of its gate/up buffer), dispatched with moe_mlp's bound and each grouped GEMM
// kernel forced, timed and printed as the gate/up calls are.
void time_down(const Model& m, Routing routing, int T, int rows, int touched, void* x, void* w, void* out,
               const std::int32_t* offsets, void* ws, std::size_t ws_bytes, bool only_rows_first, bool synced,
               double read_gbps) {
  epifuse::GroupedGemmArgs args;
  epifuse::GemmArgs& g = args.gemm;
  g.M = rows;
  g.N = m.K;
  g.K = m.N;
  g.A = x;
  g.lda = m.N;
  g.B = w;
  g.ldb = m.N;
  g.D = out;
  g.ldd = m.K;
  g.workspace = ws;
  g.workspace_bytes = ws_bytes;
  args.experts = m.experts;
  args.expert_offsets = offsets;
  args.weight_stride = static_cast<std::int64_t>(m.N) * m.K;
  args.max_expert_rows = T;
  std::vector<std::pair<std::string, epifuse::GroupedGemmArgs>> impls = {{"down, bound T", args}};
  for (const epifuse::KernelKey& k : epifuse::compiled_kernels(epifuse::Op::kGemm)) {
    if (k.grouping != epifuse::Grouping::kGrouped) continue;
    const std::string tile = std::to_string(k.tile.m) + "x" + std::to_string(k.tile.n) + " c" +
                             std::to_string(k.cluster.m) + "x" + std::to_string(k.cluster.n);
    for (epifuse::RasterOrder raster : kRasters) {
      if (only_rows_first && raster != rows_first(k)) continue;
      epifuse::GroupedGemmArgs forced = args;
      forced.gemm.kernel = epifuse::KernelChoice{k, raster};
      std::string name = std::string("down forced ") + (k.swap_ab ? "swapped " : "unswapped ") + tile;
      if (raster != epifuse::RasterOrder::kHeuristic) name += std::string(" ") + epifuse::to_string(raster);
      impls.push_back({name, forced});
    }
  }
  std::vector<std::function<void()>> calls;
  for (const auto& impl : impls) {
    calls.push_back([a = impl.second] {
      if (!epifuse::grouped_gemm(a, nullptr).ok()) std::exit(2);
    });
  }
  const std::vector<double> medians = interleaved_median_us(calls, synced);
  const double touched_bytes = static_cast<double>(touched) * m.N * m.K * 2;
  for (std::size_t i = 0; i < impls.size(); ++i) {
    const double gbps = touched_bytes / medians[i] / 1e3;
    std::printf("%-12s %-7s T %5d rows %6d touched %3d/%d  %-30s %10.1f us  %7.1f GB/s  %5.1f %% of read\n", m.name,
                to_string(routing), T, rows, touched, m.experts, impls[i].first.c_str(), medians[i], gbps,
                100.0 * gbps / read_gbps);
  }
  std::fflush(stdout);
}

}  // namespace

int main(int argc, char** argv) {
  std::vector<std::string> wanted;
  std::vector<int> token_counts(std::begin(kDefaultTokens), std::end(kDefaultTokens));
  std::vector<int> swizzles;
  std::string only_routing, only_tile;
  bool only_rows_first = false, constant = false, down = false, synced = false;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    if (arg == "--tokens" && i + 1 < argc) {
      token_counts = parse_tokens(argv[++i]);
    } else if (arg == "--rows-first") {
      only_rows_first = true;
    } else if (arg == "--constant") {
      constant = true;
    } else if (arg == "--down") {
      down = true;
    } else if (arg == "--synced") {
      synced = true;
    } else if (arg == "--swizzles" && i + 1 < argc) {
      swizzles = parse_tokens(argv[++i]);
    } else if (arg == "--routing" && i + 1 < argc) {
      only_routing = argv[++i];
    } else if (arg == "--forced" && i + 1 < argc) {
      only_tile = argv[++i];
    } else {
      wanted.push_back(arg);
    }
  }
  cudaDeviceProp prop;
  check(cudaGetDeviceProperties(&prop, 0), "device");
  const double read_gbps = read_bandwidth_gbps();
  std::printf("device %s, streaming read %.1f GB/s, %s x and weights, %s\n", prop.name, read_gbps,
              constant ? "constant" : "random", down ? "the down GEMM" : "gate/up");
  for (const Model& m : kModels) {
    if (!wanted.empty() && std::find(wanted.begin(), wanted.end(), m.name) == wanted.end()) continue;
    const std::size_t weight_elems = static_cast<std::size_t>(2) * m.N * m.K;
    void *w = nullptr, *x = nullptr, *out = nullptr, *ws = nullptr;
    std::int32_t* offsets = nullptr;
    const int max_rows = *std::max_element(token_counts.begin(), token_counts.end()) * m.topk;
    const std::size_t row_elems = static_cast<std::size_t>(std::max(m.N, m.K));  // x and out of either GEMM
    check(cudaMalloc(&w, weight_elems * m.experts * 2), "weights");
    fill_buffer(w, weight_elems * m.experts, 1, 1.0f / std::sqrt(static_cast<float>(m.K)), constant);
    check(cudaMalloc(&x, max_rows * row_elems * 2), "x");
    fill_buffer(x, max_rows * row_elems, 2, 1.0f, constant);
    check(cudaMalloc(&out, max_rows * row_elems * 2), "out");
    check(cudaMalloc(reinterpret_cast<void**>(&offsets), (m.experts + 1) * sizeof(std::int32_t)), "offsets");
    const std::size_t ws_bytes = std::size_t{1} << 28;
    check(cudaMalloc(&ws, ws_bytes), "workspace");
    std::uint64_t seed = 1234;
    for (Routing routing : kRoutings) {
    if (!only_routing.empty() && only_routing != to_string(routing)) continue;
    for (int T : token_counts) {
      const std::vector<std::int64_t> counts = epifuse::bench::expert_rows(routing, m.experts, m.topk, T, seed++);
      std::vector<std::int32_t> host_offsets(m.experts + 1, 0);
      int touched = 0;
      for (int e = 0; e < m.experts; ++e) {
        host_offsets[e + 1] = host_offsets[e] + static_cast<std::int32_t>(counts[e]);
        touched += counts[e] > 0;
      }
      const int rows = host_offsets[m.experts];
      check(cudaMemcpy(offsets, host_offsets.data(), host_offsets.size() * sizeof(std::int32_t), cudaMemcpyHostToDevice),
            "offsets");

      epifuse::GroupedGatedMlpArgs args;
      epifuse::GatedMlpArgs& g = args.gated;
      g.M = rows;
      g.N = m.N;
      g.x = x;
      g.ldx = m.K;
      g.w.weight = w;
      g.w.ld = m.K;
      g.w.N = m.N;
      g.w.K = m.K;
      g.w.layout = epifuse::GateUpLayout::kGateUpBlocks8;
      g.out = out;
      g.ldo = m.N;
      g.workspace = ws;
      g.workspace_bytes = ws_bytes;
      args.experts = m.experts;
      args.expert_offsets = offsets;
      args.weight_stride = static_cast<std::int64_t>(weight_elems);

      std::vector<std::pair<std::string, std::function<void()>>> impls;
      if (down) {
        time_down(m, routing, T, rows, touched, x, w, out, offsets, ws, ws_bytes, only_rows_first, synced, read_gbps);
        continue;
      }
      impls.push_back({"grouped", [&, args] {
                         if (!epifuse::grouped_gated_mlp(args, nullptr).ok()) std::exit(2);
                       }});
      // As moe_mlp calls it: a token adds at most one row to an expert.
      epifuse::GroupedGatedMlpArgs bounded = args;
      bounded.max_expert_rows = T;
      impls.push_back({"grouped, bound T", [bounded] {
                         if (!epifuse::grouped_gated_mlp(bounded, nullptr).ok()) std::exit(2);
                       }});
      for (const epifuse::KernelKey& k : epifuse::compiled_kernels(epifuse::Op::kGatedMlp)) {
        if (k.grouping != epifuse::Grouping::kGrouped) continue;
        const std::string tile = std::to_string(k.tile.m) + "x" + std::to_string(k.tile.n) + " c" +
                                 std::to_string(k.cluster.m) + "x" + std::to_string(k.cluster.n);
        if (!only_tile.empty() && tile.rfind(only_tile + " ", 0) != 0) continue;
        for (epifuse::RasterOrder raster : kRasters) {
          if (only_rows_first && raster != rows_first(k)) continue;
          epifuse::GroupedGatedMlpArgs forced = args;
          forced.gated.kernel = epifuse::KernelChoice{k, raster};
          std::string name = std::string("forced ") + (k.swap_ab ? "swapped " : "unswapped ") + tile;
          if (raster != epifuse::RasterOrder::kHeuristic) name += std::string(" ") + epifuse::to_string(raster);
          impls.push_back({name, [forced] {
                             if (!epifuse::grouped_gated_mlp(forced, nullptr).ok()) std::exit(2);
                           }});
        }
        for (int swizzle : swizzles) {
          epifuse::GroupedGatedMlpArgs forced = args;
          forced.gated.kernel = epifuse::KernelChoice{k, rows_first(k), swizzle};
          const std::string name = std::string("forced ") + (k.swap_ab ? "swapped " : "unswapped ") + tile + " " +
                                   epifuse::to_string(rows_first(k)) + " swizzle " + std::to_string(swizzle);
          impls.push_back({name, [forced] {
                             if (!epifuse::grouped_gated_mlp(forced, nullptr).ok()) std::exit(2);
                           }});
        }
      }
      impls.push_back({"dense loop", [&] {
                         for (int e = 0; e < m.experts; ++e) {
                           if (counts[e] == 0) continue;
                           epifuse::GatedMlpArgs d = g;
                           d.M = counts[e];
                           d.x = static_cast<const char*>(x) + static_cast<std::size_t>(host_offsets[e]) * m.K * 2;
                           d.w.weight = static_cast<const char*>(w) + weight_elems * e * 2;
                           d.out = static_cast<char*>(out) + static_cast<std::size_t>(host_offsets[e]) * m.N * 2;
                           if (!epifuse::gated_mlp(d, nullptr).ok()) std::exit(3);
                         }
                       }});
      const double touched_bytes = static_cast<double>(touched) * weight_elems * 2;
      epifuse::GatedMlpArgs first = g;
      first.M = std::max<std::int64_t>(1, counts[0]);
      if (epifuse::Status s = epifuse::gated_mlp(first, nullptr); !s.ok()) {
        std::printf("dense loop skipped: %s\n", s.to_string().c_str());
        impls.pop_back();
      } else {
        epifuse::GatedMlpArgs largest = g;
        largest.M = *std::max_element(counts.begin(), counts.end());
        std::optional<epifuse::KernelChoice> choice;
        if (epifuse::selected_kernel(largest, nullptr, &choice).ok() && choice) {
          impls.back().first += " (" + std::to_string(largest.M) + " rows: " + epifuse::to_string(*choice) + ")";
        }
      }
      std::vector<std::function<void()>> calls;
      for (const auto& impl : impls) calls.push_back(impl.second);
      const std::vector<double> medians = interleaved_median_us(calls, synced);
      for (std::size_t i = 0; i < impls.size(); ++i) {
        const std::string& name = impls[i].first;
        const double us = medians[i];
        const double gbps = touched_bytes / us / 1e3;
        std::printf("%-12s %-7s T %5d rows %6d touched %3d/%d  %-30s %10.1f us  %7.1f GB/s  %5.1f %% of read\n", m.name,
                    to_string(routing), T, rows, touched, m.experts, name.c_str(), us, gbps, 100.0 * gbps / read_gbps);
      }
      std::fflush(stdout);
    }
    }
    cudaFree(w);
    cudaFree(x);
    cudaFree(out);
    cudaFree(offsets);
    cudaFree(ws);
  }
  return 0;
}

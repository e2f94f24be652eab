#include "bench/host/host_cost.hpp"

#include <algorithm>
#include <cstdio>
#include <ctime>
#include <functional>
#include <optional>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include <cuda.h>
#include <cudaTypedefs.h>
#include <cuda_runtime_api.h>

#include "bench/baselines/cublaslt_gemm.hpp"
#include "bench/host/empty_kernel.hpp"
#include "epifuse/epifuse.hpp"
#include "src/api/kept_launches.hpp"
#include "src/kernels/tensor_map_cache.hpp"
#include "testing/gated_problem.hpp"
#include "testing/gemm_problem.hpp"
#include "testing/random.hpp"

namespace epifuse::bench {
namespace {

double thread_cpu_us() {
  timespec t{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
  return t.tv_sec * 1e6 + t.tv_nsec * 1e-3;
}

void warm_up(const std::string& op, const std::function<Status(cudaStream_t)>& call, cudaStream_t stream) {
  for (int i = 0; i < 100; ++i) {
    if (Status s = call(stream); !s.ok()) throw std::runtime_error(op + ": " + s.to_string());
  }
  cudaStreamSynchronize(stream);
}

// The CPU time of the `i`-th call of a loop. Every 64 calls the stream drains, untimed, so that no
// call waits for room in a full launch queue (that wait would be the GPU's time, not the call's).
double cpu_us_of_call(int i, const std::string& op, const std::function<Status(cudaStream_t)>& call,
                      cudaStream_t stream) {
  if (i % 64 == 0) cudaStreamSynchronize(stream);
  const double start = thread_cpu_us();
  const Status s = call(stream);
  const double us = thread_cpu_us() - start;
  if (!s.ok()) throw std::runtime_error(op + ": " + s.to_string());
  return us;
}

// One result row (median, mean, p90 of the calls' CPU times), also printed.
nlohmann::json summary_row(const std::string& op, const std::string& shape, std::vector<double> us) {
  double sum = 0;
  for (double v : us) sum += v;
  std::sort(us.begin(), us.end());
  nlohmann::json row = {{"op", op},
                        {"impl", "epifuse"},
                        {"shape", shape},
                        {"calls", us.size()},
                        {"cpu_us_median", us[us.size() / 2]},
                        {"cpu_us_mean", sum / static_cast<double>(us.size())},
                        {"cpu_us_p90", us[us.size() * 9 / 10]}};
  std::fprintf(stderr, "[host] %-6s %-16s median %.2f us, mean %.2f us, p90 %.2f us of CPU per call\n", op.c_str(),
               shape.c_str(), row["cpu_us_median"].get<double>(), row["cpu_us_mean"].get<double>(),
               row["cpu_us_p90"].get<double>());
  return row;
}

nlohmann::json time_calls(const std::string& op, const std::string& shape, int calls,
                          const std::function<Status(cudaStream_t)>& call, cudaStream_t stream) {
  warm_up(op, call, stream);
  std::vector<double> us;
  us.reserve(static_cast<std::size_t>(calls));
  for (int i = 0; i < calls; ++i) us.push_back(cpu_us_of_call(i, op, call, stream));
  cudaStreamSynchronize(stream);
  return summary_row(op, shape, std::move(us));
}

// The MoE ops at one token on 8 experts of 1024x1024 (top-2): the grouped gate/up alone, and the
// whole layer (the permute, both grouped GEMMs, the combine: six launches). Weights are left as
// allocated: only the host's work is measured.
struct MoeHostCase {
  static constexpr std::int64_t kExperts = 8, kTopk = 2, kN = 1024, kK = 1024;
  testing::GatedProblem expert0{{1, kN, kK}, testing::run_seed()};
  testing::DeviceBuffer gate_up{kExperts * 2 * kN * kK * 2}, down{kExperts * kK * kN * 2}, offsets{(kExperts + 1) * 4},
      ids{kTopk * 4}, weights{kTopk * 4}, y{kK * 2}, sorted_x{kTopk * kK * 2}, rows{kTopk * kN * 2}, workspace;
  GroupedGatedMlpArgs grouped;
  MoeMlpArgs layer;

  MoeHostCase() {
    const std::int32_t offsets_host[kExperts + 1] = {0, 1, 1, 1, 2, 2, 2, 2, 2}, ids_host[kTopk] = {0, 3};
    const float weights_host[kTopk] = {0.5f, 0.5f};
    offsets.upload(offsets_host, sizeof(offsets_host));
    ids.upload(ids_host, sizeof(ids_host));
    weights.upload(weights_host, sizeof(weights_host));
    PackedGateUp w = expert0.args().w;
    w.weight = gate_up.data();
    grouped.gated = expert0.args();
    grouped.gated.M = kTopk;
    grouped.gated.w = w;
    grouped.gated.out = rows.data();
    grouped.gated.x = sorted_x.data();
    grouped.experts = kExperts;
    grouped.expert_offsets = offsets.as<std::int32_t>();
    grouped.weight_stride = 2 * kN * kK;
    grouped.max_expert_rows = 1;
    layer.tokens = 1;
    layer.experts = kExperts;
    layer.topk = kTopk;
    layer.x = expert0.args().x;
    layer.ldx = kK;
    layer.topk_ids = ids.as<std::int32_t>();
    layer.topk_weights = weights.as<float>();
    layer.gate_up = w;
    layer.gate_up_stride = 2 * kN * kK;
    layer.down = down.data();
    layer.down_stride = kK * kN;
    layer.y = y.data();
    layer.ldy = kK;
    std::size_t grouped_bytes = 0, layer_bytes = 0;
    throw_if_failed(grouped_gated_mlp_workspace_size(grouped, nullptr, &grouped_bytes));
    throw_if_failed(moe_mlp_workspace_size(layer, nullptr, &layer_bytes));
    workspace = testing::DeviceBuffer(std::max<std::size_t>({grouped_bytes, layer_bytes, 1}));
    grouped.gated.workspace = layer.workspace = workspace.data();
    grouped.gated.workspace_bytes = grouped_bytes;
    layer.workspace_bytes = layer_bytes;
  }
  static void throw_if_failed(const Status& s) {
    if (!s.ok()) throw std::runtime_error(s.to_string());
  }
};

// The TMA descriptor of a gated call's packed weight [2N, K] as the kernels tile it (64-element
// rows of 128 bytes, 128 rows, 128-byte swizzle), encoded through an entry point looked up once.
class WeightDescriptor {
 public:
  explicit WeightDescriptor(const GatedMlpArgs& args)
      : address_(const_cast<void*>(args.w.weight)),
        dims_{static_cast<cuuint64_t>(args.w.K), static_cast<cuuint64_t>(2 * args.w.N)},
        row_stride_bytes_{static_cast<cuuint64_t>(args.w.ld) * 2} {
    void* fn = nullptr;
    cudaDriverEntryPointQueryResult found{};
    if (cudaGetDriverEntryPointByVersion("cuTensorMapEncodeTiled", &fn, 12000, cudaEnableDefault, &found) !=
            cudaSuccess ||
        found != cudaDriverEntryPointSuccess) {
      throw std::runtime_error("cuTensorMapEncodeTiled: no driver entry point");
    }
    encode_ = reinterpret_cast<PFN_cuTensorMapEncodeTiled_v12000>(fn);
  }
  Status encode() const {
    CUtensorMap map;
    const cuuint32_t box[2] = {64, 128}, element_strides[2] = {1, 1};
    const CUresult r = encode_(&map, CU_TENSOR_MAP_DATA_TYPE_BFLOAT16, 2, address_, dims_, row_stride_bytes_, box,
                               element_strides, CU_TENSOR_MAP_INTERLEAVE_NONE, CU_TENSOR_MAP_SWIZZLE_128B,
                               CU_TENSOR_MAP_L2_PROMOTION_L2_256B, CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE);
    return r == CUDA_SUCCESS ? Status::success() : Status::cuda_error("cuTensorMapEncodeTiled");
  }

 private:
  void* address_;
  cuuint64_t dims_[2];
  cuuint64_t row_stride_bytes_[1];
  PFN_cuTensorMapEncodeTiled_v12000 encode_ = nullptr;
};

// The same call with a cache on and off (`keep`), interleaved in blocks of 500 calls (the host's
// speed drifts between runs by up to 30 %, within one run much less): one row each.
struct Toggle {
  std::function<void(bool)> keep;
  const char* on;   // the rows' labels
  const char* off;
};

const Toggle kDescriptors = {[](bool keep) { detail::keep_tensor_maps(keep); }, "descriptors kept",
                             "descriptors encoded anew"};
const Toggle kLaunches = {[](bool keep) { detail::keep_launches(keep); }, "launches kept", "launches made anew"};

std::vector<nlohmann::json> time_calls_on_and_off(const Toggle& toggle, const std::string& op,
                                                  const std::string& shape, int calls,
                                                  const std::function<Status(cudaStream_t)>& call,
                                                  cudaStream_t stream) {
  constexpr int kBlock = 500;
  std::vector<double> us[2];  // [0] on, [1] off
  warm_up(op, call, stream);
  for (int block = 0; block * kBlock < 2 * calls; ++block) {
    const int off = block % 2;
    toggle.keep(off == 0);
    for (int i = 0; i < kBlock; ++i) us[off].push_back(cpu_us_of_call(i, op, call, stream));
  }
  toggle.keep(true);
  cudaStreamSynchronize(stream);
  return {summary_row(op, shape + ", A/B: " + toggle.on, std::move(us[0])),
          summary_row(op, shape + ", A/B: " + toggle.off, std::move(us[1]))};
}

// The TMA descriptor cache, and the kept launches (`suffix` names which ran), where a decode step
// defeats them and where it does not: the packed weight at 80 addresses in turn (80 layers'
// weights, each seen once per step), and x at a new address at every call, more addresses than
// either cache keeps (x's descriptor encoded and the call's launch kept anew every call). The
// addresses are offsets into one allocation: what the kernels read does not matter here.
std::vector<nlohmann::json> time_calls_over_addresses(const testing::GatedProblem& problem, int calls,
                                                       cudaStream_t stream, const std::string& suffix) {
  constexpr std::size_t kLayers = 80, kXAddresses = 5000, kWeightStep = 256, kXStep = 16;
  const GatedMlpArgs base = problem.args();
  const std::size_t weight_bytes = static_cast<std::size_t>(2 * base.w.N) * base.w.ld * 2;
  const std::size_t x_bytes = static_cast<std::size_t>(base.M) * base.ldx * 2;
  const testing::DeviceBuffer weights(weight_bytes + kLayers * kWeightStep), xs(x_bytes + kXAddresses * kXStep);
  std::size_t layer = 0, x_address = 0;
  GatedMlpArgs args = base;
  nlohmann::json by_layer =
      time_calls("gated", "1x14336x4096, 80 weights in turn" + suffix, calls, [&](cudaStream_t s) {
        args.w.weight = weights.as<char>() + kWeightStep * (layer++ % kLayers);
        return gated_mlp(args, s);
      }, stream);
  args = base;
  nlohmann::json new_x = time_calls("gated", "1x14336x4096, x new every call" + suffix, calls, [&](cudaStream_t s) {
    args.x = xs.as<char>() + kXStep * (x_address++ % kXAddresses);
    return gated_mlp(args, s);
  }, stream);
  return {by_layer, new_x};
}

// Kept launches where no call's arguments come again (x at a new address every call): what the
// key and the lookup cost a call that cannot be repeated, on and off in alternating blocks.
std::vector<nlohmann::json> time_new_x_with_and_without_keeping(const testing::GatedProblem& problem, int calls,
                                                                 cudaStream_t stream) {
  constexpr std::size_t kXAddresses = 5000, kXStep = 16;
  GatedMlpArgs args = problem.args();
  const testing::DeviceBuffer xs(static_cast<std::size_t>(args.M) * args.ldx * 2 + kXAddresses * kXStep);
  std::size_t x_address = 0;
  return time_calls_on_and_off(kLaunches, "gated", "1x14336x4096, x new every call", calls, [&](cudaStream_t s) {
    args.x = xs.as<char>() + kXStep * (x_address++ % kXAddresses);
    return gated_mlp(args, s);
  }, stream);
}

}  // namespace

nlohmann::json measure_host_cost(int calls) {
  cudaStream_t stream = nullptr;
  if (cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking) != cudaSuccess) throw std::runtime_error("no stream");
  nlohmann::json rows = nlohmann::json::array();
  const std::uint64_t seed = testing::run_seed();
  testing::GemmProblem gemm_problem({1, 4096, 4096}, seed);
  testing::GemmProblem bias_gelu_problem(
      {1, 4096, 4096, DType::kBF16, DType::kBF16, 0, 0, {.col_bias = true, .activation = Activation::kGeluTanh}}, seed);
  testing::GatedProblem gated_problem({1, 14336, 4096}, seed);
  std::optional<KernelChoice> choice;
  bool delegated = false;
  if (Status s = selected_kernel(gemm_problem.args(), stream, &choice, &delegated); !s.ok()) {
    throw std::runtime_error(s.to_string());
  }
  nlohmann::json plain = time_calls("gemm", "1x4096x4096", calls,
                                    [&](cudaStream_t s) { return gemm(gemm_problem.args(), s); }, stream);
  if (delegated) plain["impl"] = "epifuse-delegated";
  rows.push_back(plain);
  rows.push_back(time_calls("gemm", "1x4096x4096 bias_gelu", calls,
                            [&](cudaStream_t s) { return gemm(bias_gelu_problem.args(), s); }, stream));
  rows.push_back(time_calls("gated", "1x14336x4096", calls,
                            [&](cudaStream_t s) { return gated_mlp(gated_problem.args(), s); }, stream));
  // Launches made anew: the rows as before kept launches (the descriptor cache alone), then kept.
  detail::keep_launches(false);
  for (nlohmann::json& row : time_calls_over_addresses(gated_problem, calls, stream, "")) rows.push_back(row);
  detail::keep_launches(true);
  for (nlohmann::json& row : time_calls_over_addresses(gated_problem, calls, stream, ", launches kept")) {
    rows.push_back(row);
  }
  for (nlohmann::json& row : time_new_x_with_and_without_keeping(gated_problem, calls, stream)) rows.push_back(row);
  for (const Toggle* toggle : {&kLaunches, &kDescriptors}) {
    // The descriptors' A/B with launches made anew: a kept launch encodes none.
    detail::keep_launches(toggle == &kLaunches);
    for (nlohmann::json& row :
         time_calls_on_and_off(*toggle, "gated", "1x14336x4096", calls,
                               [&](cudaStream_t s) { return gated_mlp(gated_problem.args(), s); }, stream)) {
      rows.push_back(row);
    }
    for (nlohmann::json& row :
         time_calls_on_and_off(*toggle, "gemm", "1x4096x4096 bias_gelu", calls,
                               [&](cudaStream_t s) { return gemm(bias_gelu_problem.args(), s); }, stream)) {
      rows.push_back(row);
    }
  }
  detail::keep_launches(true);
  // Where a gated call's time goes: validation alone; validation, the stream's device, the choice
  // and the workspace size (all but encoding the TMA descriptors and launching); the runtime
  // queries that check the stream's device; the pair of capture-mode exchanges around the
  // encodes; one driver entry-point lookup, as CUTLASS made per descriptor before epifuse
  // resolved it once; one descriptor encode (the packed weight's); launches of an empty kernel.
  const GatedMlpArgs g = gated_problem.args();
  const auto stage = [&](const char* what, const std::function<Status(cudaStream_t)>& call) {
    nlohmann::json row = time_calls("gated", std::string("1x14336x4096 ") + what, calls, call, stream);
    row["impl"] = std::string("part: ") + what;
    rows.push_back(row);
  };
  stage("validate", [&](cudaStream_t) { return validate_gated_mlp_args(g); });
  stage("selected_kernel", [&](cudaStream_t s) {
    std::optional<KernelChoice> c;
    return selected_kernel(g, s, &c);
  });
  stage("stream_checks", [&](cudaStream_t s) {
    int current = 0, stream_device = 0;
    cudaStreamCaptureStatus capture = cudaStreamCaptureStatusNone;
    const bool ok = cudaGetDevice(&current) == cudaSuccess && cudaPeekAtLastError() == cudaSuccess &&
                    cudaStreamIsCapturing(s, &capture) == cudaSuccess &&
                    cudaStreamGetDevice(s, &stream_device) == cudaSuccess;
    return ok ? Status::success() : Status::cuda_error("stream checks");
  });
  stage("capture_mode_exchange", [&](cudaStream_t) {
    cudaStreamCaptureMode mode = cudaStreamCaptureModeRelaxed;
    const bool ok = cudaThreadExchangeStreamCaptureMode(&mode) == cudaSuccess &&
                    cudaThreadExchangeStreamCaptureMode(&mode) == cudaSuccess;
    return ok ? Status::success() : Status::cuda_error("cudaThreadExchangeStreamCaptureMode");
  });
  stage("driver_entry_point", [&](cudaStream_t) {
    void* fn = nullptr;
    cudaDriverEntryPointQueryResult found{};
    return cudaGetDriverEntryPointByVersion("cuTensorMapEncodeTiled", &fn, 12000, cudaEnableDefault, &found) ==
                   cudaSuccess
               ? Status::success()
               : Status::cuda_error("cudaGetDriverEntryPointByVersion");
  });
  const WeightDescriptor weight_descriptor(g);
  stage("encode_descriptor", [&](cudaStream_t) { return weight_descriptor.encode(); });
  stage("empty_kernel_launch", [&](cudaStream_t s) {
    return launch_empty_kernel(s) == cudaSuccess ? Status::success() : Status::cuda_error("empty kernel");
  });
  stage("empty_kernel_launch_ex", [&](cudaStream_t s) {
    return launch_empty_kernel_ex(s, 1) == cudaSuccess ? Status::success() : Status::cuda_error("empty kernel");
  });
  stage("empty_cluster_launch_1x2", [&](cudaStream_t s) {
    return launch_empty_kernel_ex(s, 2) == cudaSuccess ? Status::success() : Status::cuda_error("empty kernel");
  });
  stage("empty_kernel_launch_1536_param_bytes", [&](cudaStream_t s) {
    return launch_empty_kernel_with_params(s) == cudaSuccess ? Status::success() : Status::cuda_error("empty kernel");
  });
  stage("empty_kernel_launch_200_kib_shared", [&](cudaStream_t s) {
    return launch_empty_kernel_with_shared_memory(s) == cudaSuccess ? Status::success()
                                                                     : Status::cuda_error("empty kernel");
  });
  stage("empty_kernel_launch_like_cutlass_1_block", [&](cudaStream_t s) {
    return launch_empty_kernel_like_cutlass(s, 1) == cudaSuccess ? Status::success()
                                                                  : Status::cuda_error("empty kernel");
  });
  stage("empty_kernel_launch_like_cutlass_132_blocks", [&](cudaStream_t s) {
    return launch_empty_kernel_like_cutlass(s, 132) == cudaSuccess ? Status::success()
                                                                    : Status::cuda_error("empty kernel");
  });
  // The gated call's own kept launch alone, without the key, the lookup and the device checks.
  const detail::KeptLaunch* kept = detail::find_kept_launch(detail::CallKey::of(g, delegated_tuning()));
  if (kept != nullptr) {
    const cudaLaunchConfig_t& c = kept->launch.config();
    std::fprintf(stderr, "[host] the gated call's kept launch: grid %ux%ux%u, block %u, %zu bytes of shared memory, "
                 "%zu parameter bytes (each parameter rounded up to 64), %u launch attributes\n",
                 c.gridDim.x, c.gridDim.y, c.gridDim.z, c.blockDim.x, c.dynamicSmemBytes, kept->launch.param_bytes(),
                 c.numAttrs);
    stage("kept_launch_alone", [&](cudaStream_t s) {
      return kept->launch.launch(s) == cudaSuccess ? Status::success() : Status::cuda_error("kept launch");
    });
  }
  // For scale: the host cost of the call a user would make instead.
  const GemmArgs a = gemm_problem.args();
  CublasLtGemm lt(1, 4096, 4096, DType::kBF16, DType::kBF16, LtEpilogue::kNone);
  lt.autotune(a.A, a.B, a.D, nullptr);
  nlohmann::json lt_row = time_calls("gemm", "1x4096x4096", calls, [&](cudaStream_t s) {
    lt.run(a.A, a.B, a.D, nullptr, s);
    return Status::success();
  }, stream);
  lt_row["impl"] = "cublaslt";
  rows.push_back(lt_row);
  const MoeHostCase moe;
  rows.push_back(time_calls("grouped_gated", "E8 k2 1024x1024, T 1", calls,
                            [&](cudaStream_t s) { return grouped_gated_mlp(moe.grouped, s); }, stream));
  rows.push_back(time_calls("moe_mlp", "E8 k2 1024x1024, T 1", calls,
                            [&](cudaStream_t s) { return moe_mlp(moe.layer, s); }, stream));
  cudaStreamDestroy(stream);
  return rows;
}

}  // namespace epifuse::bench

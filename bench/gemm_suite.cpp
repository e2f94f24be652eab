#include "bench/gemm_suite.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <string>

#include <cuda_runtime_api.h>
#include <fmt/format.h>

#include "bench/cublaslt_gemm.hpp"
#include "dispatch/sm90_kernel_registry.hpp"
#include "bench/static_epilogue_gemm.hpp"
#include "bench/unfused_epilogue.hpp"
#include "reference/numeric.hpp"
#include "tests/support/gemm_check.hpp"
#include "tests/support/gemm_problem.hpp"
#include "tests/support/random.hpp"

namespace epifuse::bench {
namespace {

using testing::DeviceBuffer;
using testing::EpilogueSpec;
using testing::GemmCase;
using testing::GemmProblem;
using testing::Residual;

constexpr int kMaxOperandSets = 8;

struct NamedEpilogue {
  std::string name;
  EpilogueSpec spec;
};

const EpilogueSpec kBiasGelu = {.col_bias = true, .activation = Activation::kGeluTanh};

// The fused epilogues timed against plain: the two seed chains, dequantization scales, a rich
// chain, and reductions (which run on the reducing kernel).
std::vector<NamedEpilogue> fused_epilogues() {
  return {
      {"none", {}},
      {"bias_gelu", kBiasGelu},
      {"bias_relu_alpha", {.alpha = true, .col_bias = true, .activation = Activation::kReLU}},
      {"alpha_residual", {.alpha = true, .residual = Residual::kAfterActivation}},
      {"dequant_row_col_scale", {.row_scale = true, .col_scale = true}},
      {"scale_bias_silu_residual",
       {.col_scale = true, .col_bias = true, .activation = Activation::kSiLU, .residual = Residual::kAfterActivation}},
      {"bias_gelu_amax", {.col_bias = true, .activation = Activation::kGeluTanh, .reductions = testing::kAmax}},
      {"bias_gelu_all_reductions",
       {.col_bias = true, .activation = Activation::kGeluTanh, .reductions = testing::kAllReductions}},
  };
}

// Input/output sets rotated between iterations so that together they exceed 5× L2: every
// iteration reads its operands from device memory, as in a model.
class OperandSets {
 public:
  OperandSets(const GemmProblem& p, std::size_t l2_bytes) : base_(p.args()) {
    const std::size_t set_bytes = p.a().bytes() + p.b().bytes() + 2 * p.d().bytes();
    const int count = std::clamp(static_cast<int>(std::ceil(5.0 * l2_bytes / set_bytes)), 1, kMaxOperandSets);
    for (int i = 1; i < count; ++i) {
      Set s{DeviceBuffer(p.a().bytes(), 0), DeviceBuffer(p.b().bytes(), 0), DeviceBuffer(p.d().bytes(), 0),
            DeviceBuffer(base_.epilogue.residual ? p.d().bytes() : 0, 0)};
      EPIFUSE_CHECK_CUDA(cudaMemcpy(s.a.data(), p.a().data(), p.a().bytes(), cudaMemcpyDeviceToDevice));
      EPIFUSE_CHECK_CUDA(cudaMemcpy(s.b.data(), p.b().data(), p.b().bytes(), cudaMemcpyDeviceToDevice));
      if (base_.epilogue.residual) {
        EPIFUSE_CHECK_CUDA(cudaMemcpy(s.c.data(), base_.epilogue.residual, p.d().bytes(), cudaMemcpyDeviceToDevice));
      }
      sets_.push_back(std::move(s));
    }
  }

  int count() const { return 1 + static_cast<int>(sets_.size()); }

  GemmArgs args(int iteration) const {
    const int i = iteration % count();
    if (i == 0) return base_;
    GemmArgs a = base_;
    a.A = sets_[i - 1].a.data();
    a.B = sets_[i - 1].b.data();
    a.D = sets_[i - 1].d.data();
    if (a.epilogue.residual) a.epilogue.residual = sets_[i - 1].c.data();
    return a;
  }

 private:
  struct Set {
    DeviceBuffer a, b, d, c;
  };
  GemmArgs base_;
  std::vector<Set> sets_;
};

double gemm_flops(const Shape& s) { return 2.0 * s.M * s.N * s.K; }

double min_bytes(const Shape& s, const EpilogueSpec& e) {
  double bytes = 2.0 * (s.M * s.K + s.N * s.K) + 2.0 * s.M * s.N;
  if (e.residual != Residual::kNone) bytes += 2.0 * s.M * s.N;
  return bytes;
}

std::string check_word(const testing::CheckReport& r) {
  if (!r.passed) std::fprintf(stderr, "%s", r.text.c_str());
  return r.passed ? "pass" : "fail";
}

void progress(const Shape& s, const Row& r) {
  std::fprintf(stderr, "[gemm] %5lld x %5lld x %5lld  %-26s %-22s %10.1f us  %s\n", static_cast<long long>(s.M),
               static_cast<long long>(s.N), static_cast<long long>(s.K), r.epilogue.c_str(), r.impl.c_str(),
               r.timing.median_us, r.check.c_str());
}

class ShapeRun {
 public:
  ShapeRun(const GemmSuiteOptions& options, const DeviceFacts& device, const Shape& shape, std::vector<Row>* rows)
      : options_(options), device_(device), shape_(shape), rows_(rows), seed_(testing::derive_seed(testing::run_seed(), shape.M * 1000003 + shape.N * 1009 + shape.K)) {}

  void run() {
    GemmProblem plain(gemm_case({}), seed_);
    if (options_.check) reference_ = testing::reference_accumulators(plain);
    const OperandSets sets(plain, device_.l2_bytes);
    run_cublaslt(plain, sets);
    for (const NamedEpilogue& e : fused_epilogues()) run_epifuse(e, "epifuse", "");
    run_static(plain, sets);
    if (options_.sweep) run_sweep();
  }

 private:
  GemmCase gemm_case(const EpilogueSpec& e, std::string kernel = "") const {
    return {shape_.M, shape_.N, shape_.K, DType::kBF16, DType::kBF16, 0, 0, e, std::move(kernel)};
  }

  Row& add_row(const std::string& impl, const std::string& epilogue, const EpilogueSpec& spec, const Timing& t,
               std::string check, std::string kernel) {
    Row r;
    r.impl = impl;
    r.M = shape_.M;
    r.N = shape_.N;
    r.K = shape_.K;
    r.epilogue = epilogue;
    r.timing = t;
    r.flops = gemm_flops(shape_);
    r.bytes = min_bytes(shape_, spec);
    r.check = std::move(check);
    r.kernel = std::move(kernel);
    times_[impl + "/" + epilogue] = t.median_us;
    progress(shape_, r);
    rows_->push_back(std::move(r));
    return rows_->back();
  }

  double time_of(const std::string& key) const {
    const auto it = times_.find(key);
    return it == times_.end() ? NAN : it->second;
  }

  void run_cublaslt(const GemmProblem& plain, const OperandSets& sets) {
    cudaStream_t stream = nullptr;
    const Shape& s = shape_;
    CublasLtGemm lt(s.M, s.N, s.K, DType::kBF16, DType::kBF16, LtEpilogue::kNone);
    const GemmArgs a0 = sets.args(0);
    lt.autotune(a0.A, a0.B, a0.D, nullptr, stream);
    std::string check = "skipped";
    if (options_.check) {
      lt.run(a0.A, a0.B, a0.D, nullptr, stream);
      check = check_word(testing::check_external_output(plain, reference_, a0.D, a0.ldd, DType::kBF16, {}));
    }
    const Timing t_plain = time_launches(
        [&](int i) { const GemmArgs a = sets.args(i); lt.run(a.A, a.B, a.D, nullptr, stream); }, stream, options_.timing);
    add_row("cublaslt", "none", {}, t_plain, check, lt.algo_description());

    // Bias as cuBLASLt takes it (D's dtype); the values are bf16-exact, so the math is identical.
    GemmProblem biased(gemm_case(kBiasGelu), seed_);
    std::vector<std::uint16_t> bias_bf16;
    for (float v : biased.col_bias()) bias_bf16.push_back(reference::float_to_bf16(v));
    DeviceBuffer bias(bias_bf16.size() * sizeof(std::uint16_t), 0);
    bias.upload(bias_bf16.data(), bias.bytes());
    const float* bias_f32 = biased.args().epilogue.col_bias;

    CublasLtGemm lt_gelu(s.M, s.N, s.K, DType::kBF16, DType::kBF16, LtEpilogue::kGeluBias);
    lt_gelu.autotune(a0.A, a0.B, a0.D, bias.data(), stream);
    if (options_.check) {
      lt_gelu.run(a0.A, a0.B, a0.D, bias.data(), stream);
      check = check_word(testing::check_external_output(plain, reference_, a0.D, a0.ldd, DType::kBF16, kBiasGelu));
    }
    const Timing t_lt_gelu = time_launches(
        [&](int i) { const GemmArgs a = sets.args(i); lt_gelu.run(a.A, a.B, a.D, bias.data(), stream); }, stream,
        options_.timing);
    add_row("cublaslt", "bias_gelu", kBiasGelu, t_lt_gelu, check, lt_gelu.algo_description());

    auto unfused = [&](const GemmArgs& a) {
      lt.run(a.A, a.B, a.D, nullptr, stream);
      bias_gelu_inplace(a.D, DType::kBF16, s.M, s.N, a.ldd, bias_f32, stream);
    };
    if (options_.check) {
      unfused(a0);
      check = check_word(testing::check_external_output(biased, reference_, a0.D, a0.ldd, DType::kBF16, kBiasGelu));
    }
    const Timing t_unfused = time_launches([&](int i) { unfused(sets.args(i)); }, stream, options_.timing);
    Row& r = add_row("cublaslt+act", "bias_gelu", kBiasGelu, t_unfused, check, lt.algo_description() + " + bias_gelu kernel");
    // The separate kernel alone: one read and one write of D.
    const Timing t_act = time_launches(
        [&](int i) { const GemmArgs a = sets.args(i); bias_gelu_inplace(a.D, DType::kBF16, s.M, s.N, a.ldd, bias_f32, stream); },
        stream, options_.timing);
    r.extra["act_kernel_us"] = t_act.median_us;
    r.extra["act_kernel_gbps"] = 4.0 * s.M * s.N / (t_act.median_us * 1e3);
  }

  void run_epifuse(const NamedEpilogue& e, const std::string& impl, const std::string& kernel) {
    GemmProblem problem(gemm_case(e.spec, kernel), seed_);
    std::string check = "skipped";
    if (options_.check) check = check_word(testing::run_and_check(problem, &reference_));
    std::string kernel_name;
    if (Status s = gemm_selected_kernel(problem.args(), &kernel_name); !s.ok()) throw std::runtime_error(s.to_string());
    const OperandSets sets(problem, device_.l2_bytes);
    const Timing t = time_launches(
        [&](int i) {
          if (Status s = gemm(sets.args(i), nullptr); !s.ok()) throw std::runtime_error(s.to_string());
        },
        nullptr, options_.timing);
    Row& r = add_row(impl, e.name, e.spec, t, check, kernel_name);
    const double ours = t.median_us;
    if (e.name == "none") {
      r.extra["vs_cublaslt"] = time_of("cublaslt/none") / ours;
    } else if (e.name == "bias_gelu") {
      r.extra["vs_cublaslt_bias_gelu"] = time_of("cublaslt/bias_gelu") / ours;
      r.extra["vs_cublaslt+act"] = time_of("cublaslt+act/bias_gelu") / ours;
      r.extra["overhead_vs_plain_pct"] = 100.0 * (ours / time_of(impl + "/none") - 1.0);
    } else {
      r.extra["overhead_vs_plain_pct"] = 100.0 * (ours / time_of(impl + "/none") - 1.0);
    }
  }

  // Flexibility cost, where the heuristic runs the static twin's configuration.
  void run_static(const GemmProblem& plain, const OperandSets& sets) {
    std::string selected;
    if (Status s = gemm_selected_kernel(plain.args(), &selected); !s.ok() || selected != static_gemm_twin_kernel()) return;
    const GemmArgs a0 = sets.args(0);
    std::string check = "skipped";
    if (options_.check) {
      if (Status s = static_gemm(a0, nullptr); !s.ok()) throw std::runtime_error(s.to_string());
      check = check_word(testing::check_external_output(plain, reference_, a0.D, a0.ldd, DType::kBF16, {}));
    }
    const Timing t = time_launches(
        [&](int i) {
          if (Status s = static_gemm(sets.args(i), nullptr); !s.ok()) throw std::runtime_error(s.to_string());
        },
        nullptr, options_.timing);
    add_row("epifuse-static", "none", {}, t, check, std::string(static_gemm_twin_kernel()) + " with D = cast(acc) only");
    for (Row& r : *rows_) {
      if (r.impl == "epifuse" && r.epilogue == "none" && r.M == shape_.M && r.N == shape_.N && r.K == shape_.K) {
        r.extra["flexibility_cost_pct"] = 100.0 * (r.timing.median_us / t.median_us - 1.0);
      }
    }
  }

  // Tuning data: every compiled bf16 kernel under several raster orders and swizzles, plain
  // epilogue, launched through the registry. Correctness of each kernel is the test suite's
  // EveryKernel cases; these rows are not checked.
  void run_sweep() {
    GemmProblem problem(gemm_case({}), seed_);
    const OperandSets sets(problem, device_.l2_bytes);
    sm90::LaunchConfig defaults;
    if (Status s = sm90::default_launch_config(&defaults); !s.ok()) throw std::runtime_error(s.to_string());
    const std::pair<sm90::RasterOrder, const char*> rasters[] = {
        {sm90::RasterOrder::kHeuristic, "auto"}, {sm90::RasterOrder::kAlongM, "along_m"}, {sm90::RasterOrder::kAlongN, "along_n"}};
    for (const detail::Sm90GemmKernelEntry* k : detail::sm90_gemm_kernels()) {
      const GemmKernelInfo& info = k->info;
      if (info.input_dtype != DType::kBF16 || info.output_dtype != DType::kBF16 || info.reductions) continue;
      for (const auto& [raster, raster_name] : rasters) {
        for (int swizzle : {1, 4}) {
          if (raster == sm90::RasterOrder::kHeuristic && swizzle != 1) continue;
          sm90::LaunchConfig config = defaults;
          config.raster = raster;
          config.max_swizzle = swizzle;
          const Timing t = time_launches(
              [&](int i) {
                if (Status s = k->run(sets.args(i), config, nullptr); !s.ok()) throw std::runtime_error(s.to_string());
              },
              nullptr, {10, 60, 100.0});
          Row& r = add_row("sweep", "none", {}, t, "skipped", info.name);
          r.extra["raster"] = raster_name;
          r.extra["swizzle"] = swizzle;
          r.extra["vs_cublaslt"] = time_of("cublaslt/none") / t.median_us;
        }
      }
    }
  }

  const GemmSuiteOptions& options_;
  const DeviceFacts& device_;
  Shape shape_;
  std::vector<Row>* rows_;
  std::uint64_t seed_;
  testing::ReferenceAccumulators reference_;
  std::map<std::string, double> times_;
};

}  // namespace

std::vector<Shape> default_gemm_shapes() {
  return {{64, 28672, 8192}, {128, 28672, 8192}, {1024, 28672, 8192}, {4096, 28672, 8192}, {4096, 8192, 8192}};
}

void run_gemm_suite(const GemmSuiteOptions& options, const DeviceFacts& device, std::vector<Row>* rows) {
  for (const Shape& s : options.shapes) ShapeRun(options, device, s, rows).run();
}

}  // namespace epifuse::bench

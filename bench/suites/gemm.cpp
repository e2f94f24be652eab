// `epifuse-bench gemm`: epifuse's GEMM with its epilogues against cuBLASLt (plain and with its own
// BIAS+GELU epilogue) and cuBLASLt + a separate bias+GELU kernel, in the same process and run.
#include <algorithm>
#include <cstdio>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>

#include <cuda_runtime_api.h>
#include <fmt/format.h>

#include "bench/baselines/bias_gelu.hpp"
#include "bench/baselines/cublaslt_gemm.hpp"
#include "bench/harness/roofline_plan.hpp"
#include "bench/harness/rotation.hpp"
#include "bench/harness/sweep_workspace.hpp"
#include "bench/suites/suite.hpp"
#include "epifuse/tuning.hpp"
#include "reference/numeric.hpp"
#include "testing/gemm_check.hpp"
#include "testing/gemm_problem.hpp"
#include "testing/random.hpp"

namespace epifuse::bench {
namespace {

using testing::DeviceBuffer;
using testing::EpilogueSpec;
using testing::GemmCase;
using testing::GemmProblem;
using testing::Residual;

struct NamedEpilogue {
  std::string name;
  EpilogueSpec spec;
};

const EpilogueSpec kBiasGelu = {.col_bias = true, .activation = Activation::kGeluTanh};
// The same with the bias in D's type, as a bf16 nn.Linear holds it.
const EpilogueSpec kBf16BiasGelu = {.col_bias = true, .activation = Activation::kGeluTanh,
                                    .col_bias_dtype = DType::kBF16};

// The fused epilogues timed against plain: the two seed chains, dequantization scales, a rich
// chain, and reductions: amax and row_amax (the scales of FP8 quantization per tensor and per
// token) in the same kernel, column reductions on the column-reduction kernel.
std::vector<NamedEpilogue> fused_epilogues() {
  return {
      {"none", {}},
      {"bias_gelu", kBiasGelu},
      {"bias_bf16_gelu", kBf16BiasGelu},
      {"bias_relu_alpha", {.alpha = true, .col_bias = true, .activation = Activation::kReLU}},
      {"alpha_residual", {.alpha = true, .residual = Residual::kAfterActivation}},
      {"dequant_row_col_scale", {.row_scale = true, .col_scale = true}},
      {"scale_bias_silu_residual",
       {.col_scale = true, .col_bias = true, .activation = Activation::kSiLU, .residual = Residual::kAfterActivation}},
      {"bias_gelu_amax", {.col_bias = true, .activation = Activation::kGeluTanh, .reductions = testing::kAmax}},
      {"bias_gelu_row_amax", {.col_bias = true, .activation = Activation::kGeluTanh, .reductions = testing::kRowAmax}},
      {"bias_gelu_all_reductions",
       {.col_bias = true, .activation = Activation::kGeluTanh, .reductions = testing::kAllReductions}},
  };
}

// The problem's operands, and copies of them rotated between iterations (harness/rotation.hpp).
class OperandSets {
 public:
  OperandSets(const GemmProblem& p, std::size_t l2_bytes) : base_(p.args()) {
    const int count = operand_sets(p.a().bytes() + p.b().bytes() + 2 * p.d().bytes(), l2_bytes);
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

void throw_if_failed(const Status& s) {
  if (!s.ok()) throw std::runtime_error(s.to_string());
}

// One implementation of one shape: its row (all but the timing) and how to launch iteration i.
struct Contender {
  Row row;
  Launch launch;
};

// Everything measured for one shape. Preparing a contender checks it against the fp64 reference;
// all contenders are then timed together, interleaved, so they share the GPU's clock states.
class ShapeRun {
 public:
  ShapeRun(const SuiteOptions& options, const DeviceFacts& device, const Ceilings& ceilings, const Shape& shape)
      : options_(options),
        device_(device),
        ceilings_(ceilings),
        shape_(shape),
        seed_(testing::derive_seed(testing::run_seed(), shape.M * 1000003 + shape.N * 1009 + shape.K)) {}

  void run(std::vector<Row>* rows) {
    plain_ = std::make_unique<GemmProblem>(gemm_case({}), seed_);
    if (options_.check) reference_ = testing::reference_accumulators(*plain_);
    plain_sets_ = std::make_unique<OperandSets>(*plain_, device_.l2_bytes);
    add_cublaslt();
    for (const NamedEpilogue& e : fused_epilogues()) {
      const std::vector<std::string>& only = options_.epilogues;
      if (e.name == "none" || only.empty() || std::find(only.begin(), only.end(), e.name) != only.end()) add_epifuse(e);
    }
    measure(rows);
    if (options_.sweep) sweep(rows);
  }

 private:
  GemmCase gemm_case(const EpilogueSpec& e) const {
    return {shape_.M, shape_.N, shape_.K, DType::kBF16, DType::kBF16, 0, 0, e};
  }

  // The suite's timing over every operand set of the shape (the plain ones and each epilogue's).
  TimingOptions timing() const {
    TimingOptions t = options_.timing;
    t.operand_sets = plain_sets_->count();
    for (const std::unique_ptr<OperandSets>& sets : operand_sets_) {
      t.operand_sets = std::max(t.operand_sets, sets->count());
    }
    return t;
  }

  Row make_row(const std::string& impl, const std::string& epilogue, const EpilogueSpec& spec, std::string check,
               std::string kernel) const {
    Row r;
    r.impl = impl;
    r.M = shape_.M;
    r.N = shape_.N;
    r.K = shape_.K;
    r.epilogue = epilogue;
    r.flops = gemm_flops(shape_);
    r.bytes = min_bytes(shape_, spec);
    r.check = std::move(check);
    r.kernel = std::move(kernel);
    return r;
  }

  // Poisons D (NaN), runs `launch` once on operand set 0 and checks what it wrote as a baseline.
  // Without the poison a kernel that wrote nothing would pass on an earlier implementation's output.
  std::string run_and_check_baseline(const GemmProblem& p, const Launch& launch, const EpilogueSpec& spec) const {
    const GemmArgs a0 = plain_sets_->args(0);
    EPIFUSE_CHECK_CUDA(cudaMemset(a0.D, testing::kPoisonByte, static_cast<std::size_t>(shape_.M * a0.ldd) * 2));
    launch(0, nullptr);
    EPIFUSE_CHECK_CUDA(cudaDeviceSynchronize());
    if (!options_.check) return "skipped";
    return check_word(
        testing::check_external_output(p, reference_, a0.D, a0.ldd, DType::kBF16, spec, testing::Judge::kBaseline));
  }

  void add_cublaslt() {
    const Shape& s = shape_;
    const OperandSets& sets = *plain_sets_;
    lt_ = std::make_unique<CublasLtGemm>(s.M, s.N, s.K, DType::kBF16, DType::kBF16, LtEpilogue::kNone);
    const Launch plain = [this, &sets](int i, cudaStream_t stream) {
      const GemmArgs a = sets.args(i);
      lt_->run(a.A, a.B, a.D, nullptr, stream);
    };
    lt_->autotune(plain, timing(), nullptr);
    contenders_.push_back(
        {make_row("cublaslt", "none", {}, run_and_check_baseline(*plain_, plain, {}), lt_->algo_description()), plain});

    // cuBLASLt takes the bias in D's dtype; the values are bf16-exact, so the math is identical.
    biased_ = std::make_unique<GemmProblem>(gemm_case(kBiasGelu), seed_);
    std::vector<std::uint16_t> bias_bf16;
    for (float v : biased_->col_bias()) bias_bf16.push_back(reference::float_to_bf16(v));
    bias_bf16_ = DeviceBuffer(bias_bf16.size() * sizeof(std::uint16_t), 0);
    bias_bf16_.upload(bias_bf16.data(), bias_bf16_.bytes());
    const void* bias = bias_bf16_.data();
    const auto* bias_f32 = static_cast<const float*>(biased_->args().epilogue.col_bias);

    lt_gelu_ = std::make_unique<CublasLtGemm>(s.M, s.N, s.K, DType::kBF16, DType::kBF16, LtEpilogue::kGeluBias);
    const Launch fused = [this, &sets, bias](int i, cudaStream_t stream) {
      const GemmArgs a = sets.args(i);
      lt_gelu_->run(a.A, a.B, a.D, bias, stream);
    };
    lt_gelu_->autotune(fused, timing(), bias);
    contenders_.push_back({make_row("cublaslt", "bias_gelu", kBiasGelu,
                                    run_and_check_baseline(*biased_, fused, kBiasGelu), lt_gelu_->algo_description()),
                           fused});

    auto act = [s, bias_f32](const GemmArgs& a, cudaStream_t stream) {
      bias_gelu_inplace(a.D, DType::kBF16, s.M, s.N, a.ldd, bias_f32, stream);
    };
    const Launch unfused = [this, &sets, act](int i, cudaStream_t stream) {
      const GemmArgs a = sets.args(i);
      lt_->run(a.A, a.B, a.D, nullptr, stream);
      act(a, stream);
    };
    contenders_.push_back({make_row("cublaslt+act", "bias_gelu", kBiasGelu,
                                    run_and_check_baseline(*biased_, unfused, kBiasGelu),
                                    lt_->algo_description() + " + bias_gelu kernel"),
                           unfused});
    // The separate kernel alone: one read and one write of D.
    Row act_row = make_row("act_kernel", "bias_gelu", kBiasGelu, "skipped", "bias_gelu_inplace");
    act_row.op = "elementwise";
    act_row.flops = 0;
    act_row.bytes = 4.0 * s.M * s.N;
    contenders_.push_back({act_row, [&sets, act](int i, cudaStream_t stream) { act(sets.args(i), stream); }});
  }

  void add_epifuse(const NamedEpilogue& e) {
    auto problem = std::make_unique<GemmProblem>(gemm_case(e.spec), seed_);
    const std::string check = options_.check ? check_word(testing::run_and_check(*problem, &reference_)) : "skipped";
    std::optional<KernelChoice> choice;
    bool delegated = false;
    throw_if_failed(selected_kernel(problem->args(), nullptr, &choice, &delegated));
    auto sets = std::make_unique<OperandSets>(*problem, device_.l2_bytes);
    const OperandSets* s = sets.get();
    contenders_.push_back({make_row(delegated ? "epifuse-delegated" : "epifuse", e.name, e.spec, check,
                                    delegated ? kDelegatedKernelName : to_string(*choice)),
                           [s](int i, cudaStream_t stream) { throw_if_failed(gemm(s->args(i), stream)); }});
    if (delegated) add_own_kernel(e, *choice, s);
    add_full_tree_twin(e, s, choice->key);
    problems_.push_back(std::move(problem));
    operand_sets_.push_back(std::move(sets));
    sweep_epilogues_.push_back(e);
  }

  // Where the call is delegated to cuBLASLt: epifuse's own kernel for it, forced, checked on its own.
  void add_own_kernel(const NamedEpilogue& e, const KernelChoice& choice, const OperandSets* sets) {
    GemmCase c = gemm_case(e.spec);
    c.kernel = name(choice.key);
    auto forced = std::make_unique<GemmProblem>(c, seed_);
    const std::string check = options_.check ? check_word(testing::run_and_check(*forced, &reference_)) : "skipped";
    contenders_.push_back({make_row("epifuse", e.name, e.spec, check, to_string(choice)), forced_launch(sets, choice)});
    problems_.push_back(std::move(forced));
  }

  // `choice` forced on the operand sets. They hold the workspace dispatch's choice asked for
  // (cuBLASLt's where delegated); the kernel may need more (stream-K partials, a 16-bit bias's
  // fp32 copy).
  Launch forced_launch(const OperandSets* sets, const KernelChoice& choice) {
    GemmArgs a0 = sets->args(0);
    a0.kernel = choice;
    std::size_t needed = 0;
    throw_if_failed(gemm_workspace_size(a0, nullptr, &needed));
    fit_workspace(&a0, needed, &sweep_workspaces_);
    throw_if_failed(gemm(a0, nullptr));
    EPIFUSE_CHECK_CUDA(cudaDeviceSynchronize());
    return [sets, choice, workspace = a0.workspace, bytes = a0.workspace_bytes](int i, cudaStream_t stream) {
      GemmArgs a = sets->args(i);
      a.kernel = choice;
      a.workspace = workspace;
      a.workspace_bytes = bytes;
      throw_if_failed(gemm(a, stream));
    };
  }

  // What run-time composition costs: where dispatch picked a narrow epilogue (cast only, bias +
  // activation), the same configuration's full run-time tree on the same call.
  void add_full_tree_twin(const NamedEpilogue& e, const OperandSets* sets, const KernelKey& chosen) {
    if (chosen.epilogue != EpilogueCoverage::kCastOnly && chosen.epilogue != EpilogueCoverage::kBiasActivation) return;
    KernelKey full = chosen;
    full.epilogue = EpilogueCoverage::kFull;
    const std::vector<KernelKey> compiled = compiled_kernels(Op::kGemm);
    if (std::find(compiled.begin(), compiled.end(), full) == compiled.end()) return;
    contenders_.push_back({make_row("epifuse-full-tree", e.name, e.spec, "skipped", name(full)),
                           forced_launch(sets, KernelChoice{full})});
  }

  void measure(std::vector<Row>* rows) {
    std::vector<Launch> launches;
    for (const Contender& c : contenders_) launches.push_back(c.launch);
    const std::vector<Timing> timings = time_interleaved(launches, timing());
    std::map<std::string, double> us;  // "impl/epilogue" → median
    for (std::size_t i = 0; i < contenders_.size(); ++i) {
      contenders_[i].row.timing = timings[i];
      us[contenders_[i].row.impl + "/" + contenders_[i].row.epilogue] = timings[i].median_us;
    }
    for (Contender& c : contenders_) {
      Row& r = c.row;
      const double t = r.timing.median_us;
      if (r.op == "gemm") r.extra["pct_of_read_bw"] = pct_of_read_bw(ceilings_, 2.0 * r.N * r.K, t);
      if (r.impl == "epifuse-full-tree") {
        r.extra["cost_vs_narrow_tree_pct"] = 100.0 * (t / us["epifuse/" + r.epilogue] - 1.0);
      } else if ((r.impl == "epifuse" || r.impl == "epifuse-delegated") && r.epilogue == "none") {
        r.extra["vs_cublaslt"] = us["cublaslt/none"] / t;
      } else if (r.impl == "epifuse" || r.impl == "epifuse-delegated") {
        if (us.count(r.impl + "/none")) r.extra["overhead_vs_plain_pct"] = 100.0 * (t / us[r.impl + "/none"] - 1.0);
        if (r.epilogue == "bias_gelu" || r.epilogue == "bias_bf16_gelu") {
          r.extra["vs_cublaslt_bias_gelu"] = us["cublaslt/bias_gelu"] / t;
          r.extra["vs_cublaslt+act"] = us["cublaslt+act/bias_gelu"] / t;
        }
      } else if (r.impl == "act_kernel") {
        r.extra["pct_of_copy_bandwidth"] = 100.0 * (r.bytes / (t * 1e3)) / ceilings_.copy_gbps;
      }
      std::fprintf(stderr, "[gemm] %5lld x %5lld x %5lld  %-26s %-16s %10.1f us  %s\n", static_cast<long long>(r.M),
                   static_cast<long long>(r.N), static_cast<long long>(r.K), r.epilogue.c_str(), r.impl.c_str(), t,
                   r.check.c_str());
      rows->push_back(r);
    }
  }

  // Tuning data, interleaved with cuBLASLt: every compiled bf16 kernel without column reductions
  // under several raster orders and swizzles (plain epilogue), and with the timed epilogues at
  // default launch knobs, each forced through the public API (tuning.hpp). Correctness of each
  // kernel is the test suite's EveryKernel cases, so these rows are not checked.
  void sweep(std::vector<Row>* rows) {
    const std::pair<RasterOrder, const char*> rasters[] = {{RasterOrder::kAlongM, "along_m"},
                                                           {RasterOrder::kAlongN, "along_n"}};
    std::vector<Row> sweep_rows = {make_row("cublaslt", "none", {}, "skipped", lt_->algo_description())};
    std::vector<Launch> launches = {contenders_.front().launch};
    // cuBLASLt's own BIAS+GELU, when timed, runs in the same rounds: forced bias+GELU kernels are
    // judged against it.
    std::optional<std::size_t> lt_bias_gelu;
    for (const Contender& c : contenders_) {
      if (c.row.impl != "cublaslt" || c.row.epilogue != "bias_gelu") continue;
      lt_bias_gelu = sweep_rows.size();
      sweep_rows.push_back(c.row);
      launches.push_back(c.launch);
    }

    auto add = [&](const KernelChoice& choice, std::size_t e, const char* raster_name) {
      const OperandSets& sets = *operand_sets_[e];
      GemmArgs a0 = sets.args(0);
      a0.kernel = choice;
      std::size_t needed = 0;
      throw_if_failed(gemm_workspace_size(a0, nullptr, &needed));
      fit_workspace(&a0, needed, &sweep_workspaces_);
      const Status first = gemm(a0, nullptr);
      const cudaError_t err = cudaDeviceSynchronize();
      if (!first.ok() || err != cudaSuccess) {
        throw std::runtime_error("sweep: " + to_string(choice) + ": " + first.to_string() + " / " + cudaGetErrorString(err));
      }
      const NamedEpilogue& named = sweep_epilogues_[e];
      Row r = make_row("sweep", named.name, named.spec, "skipped", name(choice.key));
      r.extra["raster"] = raster_name;
      r.extra["swizzle"] = choice.swizzle;
      r.extra["splits"] = choice.splits;
      r.extra["stream_k"] = to_string(choice.stream_k);
      sweep_rows.push_back(r);
      launches.push_back([choice, &sets, workspace = a0.workspace, bytes = a0.workspace_bytes](int i, cudaStream_t stream) {
        GemmArgs a = sets.args(i);
        a.kernel = choice;
        a.workspace = workspace;
        a.workspace_bytes = bytes;
        throw_if_failed(gemm(a, stream));
      });
    };

    for (const KernelKey& k : compiled_kernels(Op::kGemm)) {
      if (k.a != DType::kBF16 || k.d != DType::kBF16 || k.epilogue == EpilogueCoverage::kFullWithColumnReductions ||
          k.grouping != Grouping::kNone || !swept(options_, name(k))) {
        continue;
      }
      if (shape_.M > max_tokens(k)) continue;
      // The knobs below run on the last timed epilogue the kernel serves (bias_gelu where timed).
      std::size_t last = 0;
      for (std::size_t e = 0; e < sweep_epilogues_.size(); ++e) {
        const Epilogue& epilogue = operand_sets_[e]->args(0).epilogue;
        if (required_coverage(epilogue) > k.epilogue || (!k.has_c && epilogue.residual)) continue;
        add({k}, e, "auto");
        last = e;
      }
      // Split-K shares of the swapped stream-K kernel (decode).
      if (k.decomposition == Decomposition::kStreamK && k.swap_ab && shape_.M <= 64) {
        for (int splits : {2, 4, 8}) add({k, RasterOrder::kHeuristic, 1, splits}, last, "auto");
      }
      if (k.decomposition == Decomposition::kStreamK) add({k, RasterOrder::kHeuristic, 1, 1, StreamKMode::kShareTail}, last, "auto");
      // The warp-mma kernel's cluster shares of the K loop (decode).
      if (k.schedule == Schedule::kWarpMma) {
        for (int splits : {2, 4, 8}) add({k, RasterOrder::kHeuristic, 1, splits}, last, "auto");
      }
      if (!options_.sweep_knobs) continue;
      for (const auto& [raster, raster_name] : rasters) {
        for (int swizzle : {1, 4}) add({k, raster, swizzle}, 0, raster_name);
      }
    }
    const std::vector<Timing> timings =
        time_interleaved(launches, {100.0, 4, 2, 10, options_.timing.graphs, timing().operand_sets});
    for (std::size_t i = 1; i < sweep_rows.size(); ++i) {
      if (lt_bias_gelu && i == *lt_bias_gelu) continue;
      sweep_rows[i].timing = timings[i];
      sweep_rows[i].extra["vs_cublaslt"] = timings[0].median_us / timings[i].median_us;
      if (lt_bias_gelu && sweep_rows[i].epilogue == "bias_gelu") {
        sweep_rows[i].extra["vs_cublaslt_bias_gelu"] = timings[*lt_bias_gelu].median_us / timings[i].median_us;
      }
      rows->push_back(sweep_rows[i]);
    }
  }

  const SuiteOptions& options_;
  const DeviceFacts& device_;
  const Ceilings& ceilings_;
  Shape shape_;
  std::uint64_t seed_;
  testing::ReferenceAccumulators reference_;
  std::unique_ptr<GemmProblem> plain_, biased_;
  std::unique_ptr<OperandSets> plain_sets_;
  std::unique_ptr<CublasLtGemm> lt_, lt_gelu_;
  DeviceBuffer bias_bf16_;
  std::vector<std::unique_ptr<GemmProblem>> problems_;
  std::vector<std::unique_ptr<OperandSets>> operand_sets_;
  std::vector<Contender> contenders_;
  std::vector<NamedEpilogue> sweep_epilogues_;  // operand_sets_[i] belongs to sweep_epilogues_[i]
  std::vector<DeviceBuffer> sweep_workspaces_;   // for forced kernels that need more than the dispatched one
};

// Fake, far-apart operands: validation reads no memory.
Status validate(const Shape& s) {
  GemmArgs a;
  a.M = s.M;
  a.N = s.N;
  a.K = s.K;
  a.A = reinterpret_cast<const void*>(std::uintptr_t{1} << 44);
  a.B = reinterpret_cast<const void*>(std::uintptr_t{2} << 44);
  a.D = reinterpret_cast<void*>(std::uintptr_t{3} << 44);
  a.lda = a.ldb = s.K;
  a.ldd = s.N;
  return validate_gemm_args(a);
}

void print_plan(const std::vector<Shape>& shapes) {
  std::string epilogues;
  for (const NamedEpilogue& e : fused_epilogues()) epilogues += (epilogues.empty() ? "" : ", ") + e.name;
  fmt::print("epifuse-bench gemm would run, per shape: cuBLASLt GEMM (plain and its BIAS+GELU epilogue),\n"
             "cuBLASLt GEMM + a separate bias+GELU kernel, and epifuse with the epilogues\n{};\n"
             "each checked against an fp64 reference, then timed, interleaved.\n\n",
             epilogues);
  fmt::print("Roofline on datasheet ceilings (bf16 in/out; bytes = A + B + D read/written once):\n");
  print_roofline(shapes, /*gated=*/false);
}

}  // namespace

Suite gemm_suite() {
  Suite s;
  s.name = "gemm";
  s.description = "GEMM with epifuse epilogues against cuBLASLt (the default)";
  s.shape_help = "MxNxK, repeatable";
  s.gated_model_gemms = false;
  s.model_tokens = {1, 128, 1024, 4096};
  // Llama-3-70B's gate/up projection (N = 28672, K = 8192) at 64…4096 tokens, and a square 4096×8192×8192.
  s.default_shapes = {{64, 28672, 8192}, {128, 28672, 8192}, {1024, 28672, 8192}, {4096, 28672, 8192}, {4096, 8192, 8192}};
  s.timing = {};
  s.quick_timing = {100.0, 5, 2, 20};
  s.validate = &validate;
  s.print_plan = &print_plan;
  s.run_shape = [](const SuiteOptions& options, const DeviceFacts& device, const Ceilings& ceilings, const Shape& shape,
                   std::vector<Row>* rows) { ShapeRun(options, device, ceilings, shape).run(rows); };
  return s;
}

}  // namespace epifuse::bench

// `epifuse-bench gated`: the fused gated MLP against cuBLASLt's GEMM [M, 2N] alone, cuBLASLt + a
// separate act·mul kernel, and the eager path (GEMM, act, mul), each checked, then timed interleaved.
#include <algorithm>
#include <cstdio>
#include <functional>
#include <map>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include <cuda_runtime_api.h>
#include <fmt/format.h>

#include "bench/baselines/act_mul.hpp"
#include "bench/baselines/cublaslt_gemm.hpp"
#include "bench/harness/contenders.hpp"
#include "bench/harness/roofline_plan.hpp"
#include "bench/harness/rotation.hpp"
#include "bench/harness/sweep_workspace.hpp"
#include "bench/suites/suite.hpp"
#include "epifuse/tuning.hpp"
#include "testing/gated_problem.hpp"
#include "testing/random.hpp"

namespace epifuse::bench {
namespace {

using testing::DeviceBuffer;
using testing::GatedCase;
using testing::GatedProblem;

constexpr std::size_t kElem = 2;  // bf16

void throw_if_failed(const Status& s) {
  if (!s.ok()) throw std::runtime_error(s.to_string());
}

DeviceBuffer copy_of(const void* src, std::size_t bytes) {
  DeviceBuffer b(bytes, 0);
  EPIFUSE_CHECK_CUDA(cudaMemcpy(b.data(), src, bytes, cudaMemcpyDeviceToDevice));
  return b;
}

// One operand set: x, both weight layouts, and every implementation's outputs and intermediates.
struct OperandSet {
  DeviceBuffer x, packed, concatenated;  // packed [2N,K] for epifuse; [gate; up] [2N,K] for cuBLASLt
  DeviceBuffer fused_out, h, act, unfused_out, eager_out;
  GatedMlpArgs args;
};

class GatedShapeRun {
 public:
  GatedShapeRun(const SuiteOptions& options, const DeviceFacts& device, const Ceilings& ceilings, Shape shape)
      : options_(options), device_(device), ceilings_(ceilings), s_(shape) {}

  void run(std::vector<Row>* rows) {
    const GatedCase c{s_.M, s_.N, s_.K, DType::kBF16, GatedActivation::kSwiGLU};
    problem_ = std::make_unique<GatedProblem>(c, testing::derive_seed(testing::run_seed(), s_.M * 1000003 + s_.N * 1009 + s_.K));
    make_operand_sets();
    add_contenders();
    measure(rows);
  }

 private:
  std::size_t out_bytes() const { return static_cast<std::size_t>(s_.M * s_.N) * kElem; }
  std::size_t weight_bytes() const { return static_cast<std::size_t>(2 * s_.N * s_.K) * kElem; }

  void make_operand_sets() {
    const GatedProblem& p = *problem_;
    const std::size_t half = weight_bytes() / 2;
    DeviceBuffer concatenated(weight_bytes(), 0);
    EPIFUSE_CHECK_CUDA(cudaMemcpy(concatenated.data(), p.gate().data(), half, cudaMemcpyDeviceToDevice));
    EPIFUSE_CHECK_CUDA(cudaMemcpy(concatenated.as<char>() + half, p.up().data(), half, cudaMemcpyDeviceToDevice));
    const std::size_t x_bytes = static_cast<std::size_t>(s_.M * s_.K) * kElem;
    const std::size_t set_bytes = x_bytes + weight_bytes() + out_bytes();
    const int count = operand_sets(set_bytes, device_.l2_bytes);
    for (int i = 0; i < count; ++i) {
      OperandSet set;
      set.x = copy_of(p.x().data(), x_bytes);
      set.packed = copy_of(p.args().w.weight, weight_bytes());
      set.concatenated = i == 0 ? std::move(concatenated) : copy_of(sets_[0].concatenated.data(), weight_bytes());
      set.fused_out = DeviceBuffer(out_bytes(), 0);
      set.h = DeviceBuffer(2 * out_bytes(), 0);
      set.act = DeviceBuffer(out_bytes(), 0);
      set.unfused_out = DeviceBuffer(out_bytes(), 0);
      set.eager_out = DeviceBuffer(out_bytes(), 0);
      set.args = p.args();
      set.args.x = set.x.data();
      set.args.w.weight = set.packed.data();
      set.args.out = set.fused_out.data();
      set.args.ldo = s_.N;
      sets_.push_back(std::move(set));
    }
  }

  const OperandSet& set(int iteration) const { return sets_[iteration % sets_.size()]; }
  TimingOptions timing() const {
    TimingOptions t = options_.timing;
    t.operand_sets = static_cast<int>(sets_.size());
    return t;
  }

  Row make_row(const std::string& impl, const std::string& kernel) const {
    Row r;
    r.op = "gated";
    r.impl = impl;
    r.M = s_.M;
    r.N = s_.N;
    r.K = s_.K;
    r.epilogue = "swiglu";
    r.flops = 2.0 * s_.M * (2.0 * s_.N) * s_.K;
    r.bytes = static_cast<double>(s_.M * s_.K * kElem + weight_bytes() + out_bytes());
    r.kernel = kernel;
    return r;
  }

  // Poisons `out` of set 0, runs `launch` once, checks it against the fp64 reference.
  std::string run_and_check(const Launch& launch, const DeviceBuffer& out, testing::Judge judge) {
    EPIFUSE_CHECK_CUDA(cudaMemset(out.data(), testing::kPoisonByte, out_bytes()));
    launch(0, nullptr);
    EPIFUSE_CHECK_CUDA(cudaDeviceSynchronize());
    if (!options_.check) return "skipped";
    const testing::GatedReport r = testing::check_gated_output(*problem_, out.data(), s_.N, judge);
    if (!r.passed) std::fprintf(stderr, "%s", r.text.c_str());
    return r.passed ? "pass" : "fail";
  }

  void add(Row row, Launch launch, double activation_bytes) {
    row.extra["activation_bytes"] = activation_bytes;
    contenders_.push_back({std::move(row), std::move(launch)});
  }

  void add_contenders() {
    const std::int64_t M = s_.M, N = s_.N;
    auto fused = [this](int i, cudaStream_t stream) { throw_if_failed(gated_mlp(set(i).args, stream)); };
    // Before its first launch a shape runs what dispatch's rules pick; the row keeps that as
    // `rules_kernel`, so that a run with that kernel forced (--sweep-only) judges the timing. (A
    // shape this process launched before reports the way it kept instead.)
    std::optional<KernelChoice> choice;
    bool delegated = false;
    throw_if_failed(selected_kernel(sets_[0].args, nullptr, &choice, &delegated));
    const std::string rules_kernel = delegated ? kDelegatedKernelName : to_string(*choice);
    // The first launch of a shape may time the rules' way against others and keep the fastest
    // (gated_mlp.hpp); the row names what the call runs from then on.
    fused(0, nullptr);
    EPIFUSE_CHECK_CUDA(cudaDeviceSynchronize());
    throw_if_failed(selected_kernel(sets_[0].args, nullptr, &choice, &delegated));
    // A delegated call also holds the fp32 product [M, 2N]: four times out's bf16 bytes.
    Row fused_row = make_row(delegated ? "epifuse-delegated" : "epifuse",
                             delegated ? kDelegatedKernelName : to_string(*choice));
    fused_row.extra["rules_kernel"] = rules_kernel;
    add(with_check(std::move(fused_row), fused, sets_[0].fused_out), fused,
        (delegated ? 5.0 : 1.0) * static_cast<double>(out_bytes()));
    if (delegated) add_own_kernel(*choice);

    lt_ = std::make_unique<CublasLtGemm>(M, 2 * N, s_.K, DType::kBF16, DType::kBF16, LtEpilogue::kNone);
    auto gemm = [this](int i, cudaStream_t stream) {
      lt_->run(set(i).x.data(), set(i).concatenated.data(), set(i).h.data(), nullptr, stream);
    };
    lt_->autotune(gemm, timing(), nullptr);
    Row lt_row = make_row("cublaslt", lt_->algo_description());
    lt_row.bytes = static_cast<double>(M * s_.K * kElem + weight_bytes() + 2 * out_bytes());
    add(lt_row, gemm, 2.0 * out_bytes());

    auto unfused = [this, gemm, M, N](int i, cudaStream_t stream) {
      gemm(i, stream);
      act_mul(set(i).h.data(), 2 * N, set(i).unfused_out.data(), N, M, N, DType::kBF16, GatedActivation::kSwiGLU, stream);
    };
    add(with_check(make_row("cublaslt+act", lt_->algo_description() + " + act_mul"), unfused, sets_[0].unfused_out),
        unfused, 3.0 * out_bytes());

    auto eager = [this, gemm, M, N](int i, cudaStream_t stream) {
      gemm(i, stream);
      act_only(set(i).h.data(), 2 * N, set(i).act.data(), N, M, N, DType::kBF16, GatedActivation::kSwiGLU, stream);
      mul_only(set(i).act.data(), N, set(i).h.data(), 2 * N, set(i).eager_out.data(), N, M, N, DType::kBF16, stream);
    };
    add(with_check(make_row("eager", lt_->algo_description() + " + act + mul"), eager, sets_[0].eager_out), eager,
        4.0 * out_bytes());

    // The separate act·mul kernel alone: reads [M, 2N], writes [M, N].
    Row act_row = make_row("act_kernel", "act_mul");
    act_row.op = "elementwise";
    act_row.flops = 0;
    act_row.bytes = 3.0 * out_bytes();
    add(act_row, [this, M, N](int i, cudaStream_t stream) {
      act_mul(set(i).h.data(), 2 * N, set(i).unfused_out.data(), N, M, N, DType::kBF16, GatedActivation::kSwiGLU, stream);
    }, 3.0 * out_bytes());

    if (options_.sweep) add_sweep();
  }

  // The call with `choice` forced, with a workspace of the size the forced kernel asks for.
  Launch forced(const KernelChoice& choice) {
    GatedMlpArgs a0 = set(0).args;
    a0.kernel = choice;
    std::size_t needed = 0;
    throw_if_failed(gated_mlp_workspace_size(a0, nullptr, &needed));
    fit_workspace(&a0, needed, &sweep_workspaces_);
    return [this, choice, workspace = a0.workspace, bytes = a0.workspace_bytes](int i, cudaStream_t stream) {
      GatedMlpArgs a = set(i).args;
      a.kernel = choice;
      a.workspace = workspace;
      a.workspace_bytes = bytes;
      throw_if_failed(gated_mlp(a, stream));
    };
  }

  // Where the call is delegated: epifuse's fused kernel for it, forced, checked on its own.
  void add_own_kernel(const KernelChoice& choice) {
    const Launch launch = forced(choice);
    add(with_check(make_row("epifuse", to_string(choice)), launch, sets_[0].fused_out), launch,
        static_cast<double>(out_bytes()));
  }

  // Tuning data: every compiled bf16 gated kernel at default launch knobs, the stream-K ones also
  // in their share-tail mode, the decode ones also in split-K shares, and the non-swapped ones also
  // under other raster orders and tile swizzles, each checked once, forced through the public API
  // (tuning.hpp).
  void add_sweep() {
    struct Knobs {
      RasterOrder raster;
      int swizzle;
      const char* name;
    };
    const Knobs knobs[] = {{RasterOrder::kHeuristic, 1, "auto"},
                           {RasterOrder::kAlongN, 4, "along_n"},
                           {RasterOrder::kAlongM, 4, "along_m"},
                           {RasterOrder::kHeuristic, 8, "auto"}};
    for (const KernelKey& k : compiled_kernels(Op::kGatedMlp)) {
      if (k.a != DType::kBF16 || k.grouping != Grouping::kNone) continue;
      if (set(0).args.M > max_tokens(k)) continue;
      if (!swept(options_, name(k))) continue;
      for (const Knobs& knob : knobs) {
        if ((k.swap_ab || !options_.sweep_knobs) && knob.swizzle != 1) continue;
        const Launch launch = forced({k, knob.raster, knob.swizzle});
        Row row = with_check(make_row("sweep", name(k)), launch, sets_[0].fused_out);
        row.extra["raster"] = knob.name;
        row.extra["swizzle"] = knob.swizzle;
        add(row, launch, static_cast<double>(out_bytes()));
      }
      std::vector<KernelChoice> shared;
      if (k.decomposition == Decomposition::kStreamK) {
        shared.push_back({k, RasterOrder::kHeuristic, 1, 1, StreamKMode::kShareTail});
      }
      // Even split-K shares of every tile (decode): the swapped stream-K kernels' and the warp-mma
      // kernels' (a cluster of 2, 4 or 8 CTAs shares the K loop).
      if ((k.decomposition == Decomposition::kStreamK && k.swap_ab && set(0).args.M <= 64) ||
          k.schedule == Schedule::kWarpMma) {
        for (int splits : {2, 3, 4, 8}) {
          if (k.schedule == Schedule::kWarpMma && splits == 3) continue;  // clusters of 1, 2, 4 or 8
          shared.push_back({k, RasterOrder::kHeuristic, 1, splits});
        }
      }
      for (const KernelChoice& choice : shared) {
        const Launch launch = forced(choice);
        Row row = with_check(make_row("sweep", to_string(choice)), launch, sets_[0].fused_out);
        row.extra["raster"] = "auto";
        row.extra["swizzle"] = 1;
        row.extra["splits"] = choice.splits;
        add(row, launch, static_cast<double>(out_bytes()));
      }
    }
  }

  Row with_check(Row row, const Launch& launch, const DeviceBuffer& out) {
    const bool ours = row.impl == "epifuse" || row.impl == "epifuse-delegated" || row.impl == "sweep";
    row.check = run_and_check(launch, out, ours ? testing::Judge::kFused : testing::Judge::kBaseline);
    return row;
  }

  void measure(std::vector<Row>* rows) {
    std::map<std::string, double> us = time_contenders(&contenders_, timing());
    for (auto& c : contenders_) {
      Row& r = c.row;
      const double t = r.timing.median_us;
      if (r.op == "gated") r.extra["pct_of_read_bw"] = pct_of_read_bw(ceilings_, static_cast<double>(weight_bytes()), t);
      if (r.op == "gated") r.extra["pct_of_roofline"] = 100.0 * roofline_floor_us(ceilings_, r.flops, r.bytes) / t;
      if (r.impl == "epifuse" || r.impl == "epifuse-delegated" || r.impl == "sweep") {
        r.extra["vs_cublaslt+act"] = us["cublaslt+act"] / t;
        r.extra["vs_eager"] = us["eager"] / t;
        r.extra["time_vs_cublaslt_gemm_alone"] = t / us["cublaslt"];
      }
      if (r.impl == "epifuse") {
        r.extra["memory_ratio_unfused_vs_fused"] = 3.0;
        r.extra["memory_ratio_eager_vs_fused"] = 4.0;
      }
      if (r.impl == "epifuse-delegated") {
        r.extra["memory_ratio_unfused_vs_fused"] = 3.0 / 5.0;
        r.extra["memory_ratio_eager_vs_fused"] = 4.0 / 5.0;
      }
      if (r.impl == "act_kernel") r.extra["pct_of_copy_bandwidth"] = 100.0 * (r.bytes / (t * 1e3)) / ceilings_.copy_gbps;
      std::fprintf(stderr, "[gated] %5lld x %5lld x %5lld  %-13s %-48s %10.1f us  %s\n", static_cast<long long>(r.M),
                   static_cast<long long>(r.N), static_cast<long long>(r.K), r.impl.c_str(), r.kernel.c_str(), t,
                   r.check.c_str());
      rows->push_back(r);
    }
  }


  const SuiteOptions& options_;
  const DeviceFacts& device_;
  const Ceilings& ceilings_;
  Shape s_;
  std::unique_ptr<GatedProblem> problem_;
  std::vector<OperandSet> sets_;
  std::unique_ptr<CublasLtGemm> lt_;
  std::vector<Contender> contenders_;
  std::vector<DeviceBuffer> sweep_workspaces_;  // for forced kernels that need more than the dispatched one
};

// Fake, far-apart operands: validation reads no memory.
Status validate(const Shape& s) {
  GatedMlpArgs a;
  a.M = s.M;
  a.N = a.w.N = s.N;
  a.w.K = a.w.ld = a.ldx = s.K;
  a.ldo = s.N;
  a.w.layout = GateUpLayout::kGateUpBlocks8;
  a.x = reinterpret_cast<const void*>(std::uintptr_t{1} << 44);
  a.w.weight = reinterpret_cast<const void*>(std::uintptr_t{2} << 44);
  a.out = reinterpret_cast<void*>(std::uintptr_t{3} << 44);
  return validate_gated_mlp_args(a);
}

void print_plan(const std::vector<Shape>& shapes) {
  fmt::print("epifuse-bench gated would run, per shape (N = output width, the GEMM is M x 2N x K): the fused\n"
             "SwiGLU kernel, cuBLASLt GEMM [M,2N] alone, cuBLASLt + a separate act*mul kernel, and the eager\n"
             "path (cuBLASLt, act kernel, mul kernel); each checked against an fp64 reference, then timed.\n"
             "Activation memory per path: fused M*N, cuBLASLt+act 3*M*N, eager 4*M*N elements.\n\n");
  fmt::print("Roofline on datasheet ceilings (bf16; bytes = x + both weights + out, read/written once):\n");
  print_roofline(shapes, /*gated=*/true);
}

}  // namespace

Suite gated_mlp_suite() {
  Suite s;
  s.name = "gated";
  s.description = "the fused gated MLP (SwiGLU) against cuBLASLt and unfused paths";
  s.shape_help = "MxNxK with N the output width (the GEMM is M x 2N x K), repeatable";
  s.gated_model_gemms = true;
  s.model_tokens = {1, 16, 64, 128, 256, 512, 1024, 2048, 4096, 8192, 16384};
  // Llama-3 8B (K 4096, N 14336), 70B (8192, 28672), 405B (16384, 53248) at M = 1 … 16384.
  for (const auto& [N, K] : {std::pair<std::int64_t, std::int64_t>{14336, 4096}, {28672, 8192}, {53248, 16384}}) {
    for (std::int64_t M : s.model_tokens) s.default_shapes.push_back({M, N, K});
  }
  s.timing = {300.0, 8, 1, 40};
  s.quick_timing = {100.0, 4, 1, 20};
  s.validate = &validate;
  s.print_plan = &print_plan;
  s.run_shape = [](const SuiteOptions& options, const DeviceFacts& device, const Ceilings& ceilings, const Shape& shape,
                   std::vector<Row>* rows) { GatedShapeRun(options, device, ceilings, shape).run(rows); };
  return s;
}

}  // namespace epifuse::bench

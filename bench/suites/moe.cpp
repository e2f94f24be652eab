// `epifuse-bench moe`: the grouped gate/up GEMM of a MoE layer's routed experts (op "moe_gated")
// against what an engine runs without it: a loop of cuBLASLt GEMMs over the non-empty experts,
// or one cuBLAS grouped GEMM, each followed by one act·mul kernel over every row. Models from the
// planner catalogue, routings from moe_routing.hpp. Each output is checked on up to 4 experts
// against fp64 (epifuse by the one-rounding rule, the baselines by theirs), then all are timed
// interleaved. The baselines take the experts' row counts from the host; epifuse reads them on
// the device, told only T (which bounds each expert's rows).
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <memory>
#include <numeric>
#include <stdexcept>
#include <string>
#include <vector>

#include <cuda_runtime_api.h>
#include <fmt/format.h>

#include "bench/baselines/act_mul.hpp"
#include "bench/baselines/cublas_grouped_gemm.hpp"
#include "bench/baselines/cublaslt_gemm.hpp"
#include "bench/harness/contenders.hpp"
#include "bench/harness/moe_routing.hpp"
#include "bench/suites/suite.hpp"
#include "epifuse/grouped_gated_mlp.hpp"
#include "epifuse/packing/gate_up.hpp"
#include "planner/models.hpp"
#include "testing/gated_problem.hpp"
#include "testing/random.hpp"

namespace epifuse::bench {
namespace {

using testing::DeviceBuffer;

constexpr std::size_t kElem = 2;  // bf16
constexpr std::size_t kCheckedExperts = 4;
const char* const kMoeModels[] = {"deepseek-v3", "qwen2-57b-a14b", "mixtral-8x7b"};
const std::vector<std::int64_t> kMoeTokens = {1, 8, 64, 256, 1024, 4096};

void throw_if_failed(const Status& s) {
  if (!s.ok()) throw std::runtime_error(s.to_string());
}

struct MoeModel {
  int experts = 0, topk = 0;
  std::int64_t N = 0, K = 0;  // an expert's width and the hidden size
};

MoeModel moe_model(const std::string& key) {
  plan::ModelConfig m;
  if (!plan::find_model(key, &m) || m.experts == 0) {
    throw std::invalid_argument("'" + key + "' is not a catalogue MoE model (" + fmt::format("{}", fmt::join(kMoeModels, ", ")) + ")");
  }
  return {static_cast<int>(m.experts), static_cast<int>(m.experts_per_token), m.expert_intermediate, m.hidden};
}

std::vector<Shape> moe_shapes(const std::string& model, const std::vector<std::int64_t>& tokens) {
  const MoeModel m = moe_model(model);
  std::vector<Shape> shapes;
  for (std::int64_t T : tokens) {
    for (Routing r : kRoutings) {
      Shape s{T, m.N, m.K, "moe", model, "routed experts"};
      s.routing = to_string(r);
      shapes.push_back(s);
    }
  }
  return shapes;
}

class MoeShapeRun {
 public:
  MoeShapeRun(const SuiteOptions& options, const Ceilings& ceilings, const Shape& shape)
      : options_(options), ceilings_(ceilings), s_(shape), m_(moe_model(shape.model)) {}

  void run(std::vector<Row>* rows) {
    const std::uint64_t seed = testing::derive_seed(testing::run_seed(), s_.M * 7919 + s_.N * 31 + s_.K +
                                                                             static_cast<int>(parse_routing(s_.routing)));
    rows_ = expert_rows(parse_routing(s_.routing), m_.experts, m_.topk, s_.M, seed);
    offsets_.assign(1, 0);
    for (std::int64_t r : rows_) offsets_.push_back(offsets_.back() + static_cast<std::int32_t>(r));
    total_ = offsets_.back();
    make_operands(seed);
    add_contenders();
    measure(rows);
  }

 private:
  std::size_t weight_elems() const { return static_cast<std::size_t>(2 * m_.N * m_.K); }
  std::size_t out_bytes() const { return static_cast<std::size_t>(total_ * m_.N) * kElem; }
  char* concatenated(std::size_t e) const { return concatenated_.as<char>() + e * weight_elems() * kElem; }
  double touched_weight_bytes() const {
    const auto touched = std::count_if(rows_.begin(), rows_.end(), [](std::int64_t r) { return r > 0; });
    return static_cast<double>(touched) * static_cast<double>(weight_elems() * kElem);
  }

  // Up to kCheckedExperts non-empty experts, spread out: the first, the largest, the last, one between.
  std::vector<std::size_t> experts_to_check() const {
    std::vector<std::size_t> non_empty;
    for (std::size_t e = 0; e < rows_.size(); ++e) {
      if (rows_[e] > 0) non_empty.push_back(e);
    }
    const auto largest = std::max_element(rows_.begin(), rows_.end()) - rows_.begin();
    std::vector<std::size_t> picks = {non_empty.front(), static_cast<std::size_t>(largest), non_empty.back(),
                                      non_empty[non_empty.size() / 2]};
    std::sort(picks.begin(), picks.end());
    picks.erase(std::unique(picks.begin(), picks.end()), picks.end());
    if (picks.size() > kCheckedExperts) picks.resize(kCheckedExperts);
    return picks;
  }

  // Random x and [gate; up] for every expert; the checked experts' rows and weights are their own
  // gated problems'. Then every expert is packed on the device as a user would.
  void make_operands(std::uint64_t seed) {
    const std::int64_t E = m_.experts, N = m_.N, K = m_.K;
    const float w_scale = 3.0f / std::sqrt(static_cast<float>(K));  // as testing::GatedProblem draws them
    x_ = DeviceBuffer(static_cast<std::size_t>(total_ * K) * kElem);
    concatenated_ = DeviceBuffer(E * weight_elems() * kElem);
    packed_ = DeviceBuffer(E * weight_elems() * kElem);
    h_ = DeviceBuffer(2 * out_bytes());
    for (auto* out : {&fused_out_, &loop_out_, &grouped_out_}) *out = DeviceBuffer(out_bytes());
    testing::fill_uniform(x_.data(), DType::kBF16, total_, K, K, testing::derive_seed(seed, 1), -1.0f, 1.0f);
    testing::fill_uniform(concatenated_.data(), DType::kBF16, E * 2 * N, K, K, testing::derive_seed(seed, 2), -w_scale,
                          w_scale);
    for (std::size_t e : experts_to_check()) {
      const testing::GatedCase c{rows_[e], N, K, DType::kBF16, GatedActivation::kSwiGLU};
      checked_.push_back({e, std::make_unique<testing::GatedProblem>(c, testing::derive_seed(seed, 100 + e))});
      const testing::GatedProblem& p = *checked_.back().problem;
      const std::size_t half = weight_elems() * kElem / 2;
      EPIFUSE_CHECK_CUDA(cudaMemcpy(x_.as<char>() + offsets_[e] * K * kElem, p.x().data(), rows_[e] * K * kElem,
                                    cudaMemcpyDeviceToDevice));
      EPIFUSE_CHECK_CUDA(cudaMemcpy(concatenated(e), p.gate().data(), half, cudaMemcpyDeviceToDevice));
      EPIFUSE_CHECK_CUDA(cudaMemcpy(concatenated(e) + half, p.up().data(), half, cudaMemcpyDeviceToDevice));
    }
    PackedGateUp first;
    for (std::int64_t e = E - 1; e >= 0; --e) {
      const GateUpSource src = gate_up_from_fused(concatenated(e), nullptr, N, K, K, DType::kBF16,
                                                  FusedGateUpOrder::kGateThenUp);
      throw_if_failed(pack_gate_up(src, packed_.as<char>() + e * weight_elems() * kElem, nullptr, &first, nullptr));
    }
    offsets_buffer_ = DeviceBuffer(offsets_.size() * sizeof(std::int32_t));
    offsets_buffer_.upload(offsets_.data(), offsets_.size() * sizeof(std::int32_t));

    GatedMlpArgs& g = args_.gated;
    g.M = total_;
    g.N = N;
    g.x = x_.data();
    g.ldx = K;
    g.w = first;
    g.out = fused_out_.data();
    g.ldo = N;
    g.activation = GatedActivation::kSwiGLU;
    args_.experts = E;
    args_.expert_offsets = offsets_buffer_.as<std::int32_t>();
    args_.weight_stride = static_cast<std::int64_t>(weight_elems());
    args_.max_expert_rows = s_.M;  // an engine knows T: each token adds at most one row to an expert
    std::size_t bytes = 0;
    throw_if_failed(grouped_gated_mlp_workspace_size(args_, nullptr, &bytes));
    workspace_ = DeviceBuffer(std::max<std::size_t>(bytes, 1));
    g.workspace = workspace_.data();
    g.workspace_bytes = bytes;
  }

  Row make_row(const std::string& impl, const std::string& kernel) const {
    Row r;
    r.op = "moe_gated";
    r.impl = impl;
    r.M = total_;
    r.N = m_.N;
    r.K = m_.K;
    r.epilogue = "swiglu";
    r.flops = 2.0 * static_cast<double>(total_) * (2.0 * m_.N) * m_.K;
    r.bytes = touched_weight_bytes() + static_cast<double>(total_ * m_.K * kElem + out_bytes());
    r.kernel = kernel;
    r.extra["model"] = s_.model;
    r.extra["tokens"] = s_.M;
    r.extra["experts"] = m_.experts;
    r.extra["topk"] = m_.topk;
    r.extra["routing"] = s_.routing;
    r.extra["touched_weight_bytes"] = touched_weight_bytes();
    return r;
  }

  // Poisons `out`, runs `launch` once and checks the checked experts' rows against fp64.
  std::string run_and_check(const Launch& launch, const DeviceBuffer& out, testing::Judge judge) {
    EPIFUSE_CHECK_CUDA(cudaMemset(out.data(), testing::kPoisonByte, out_bytes()));
    launch(0, nullptr);
    EPIFUSE_CHECK_CUDA(cudaDeviceSynchronize());
    if (!options_.check) return "skipped";
    bool passed = true;
    for (const auto& c : checked_) {
      const testing::GatedReport r =
          testing::check_gated_output(*c.problem, out.as<char>() + offsets_[c.expert] * m_.N * kElem, m_.N, judge);
      if (!r.passed) std::fprintf(stderr, "[moe] expert %zu:\n%s", c.expert, r.text.c_str());
      passed = passed && r.passed;
    }
    if (!out.guard_intact()) {
      std::fprintf(stderr, "[moe] bytes past the end of the output were written\n");
      passed = false;
    }
    return passed ? "pass" : "fail";
  }

  void add(Row row, const Launch& launch, const DeviceBuffer& out, testing::Judge judge) {
    row.check = run_and_check(launch, out, judge);
    contenders_.push_back({std::move(row), launch});
  }

  void add_contenders() {
    const std::int64_t N = m_.N, K = m_.K, total = total_;
    add(make_row("epifuse", "grouped_gated_mlp (max_expert_rows = T)"), [this](int, cudaStream_t s) { throw_if_failed(grouped_gated_mlp(args_, s)); },
        fused_out_, testing::Judge::kFused);

    // One cuBLASLt GEMM per non-empty expert (its default heuristic, per row count), then act·mul.
    for (std::int64_t r : rows_) {
      if (r > 0 && !lt_.count(r)) lt_[r] = std::make_unique<CublasLtGemm>(r, 2 * N, K, DType::kBF16, DType::kBF16, LtEpilogue::kNone);
    }
    auto loop = [this, N, K, total](int, cudaStream_t s) {
      for (std::size_t e = 0; e < rows_.size(); ++e) {
        if (rows_[e] == 0) continue;
        lt_.at(rows_[e])->run(x_.as<char>() + offsets_[e] * K * kElem, concatenated(e),
                              h_.as<char>() + offsets_[e] * 2 * N * kElem, nullptr, s);
      }
      act_mul(h_.data(), 2 * N, loop_out_.data(), N, total, N, DType::kBF16, GatedActivation::kSwiGLU, s);
    };
    add(make_row("cublaslt_loop+act", "cuBLASLt per expert (heuristic #0) + act_mul"), loop, loop_out_,
        testing::Judge::kBaseline);

    grouped_ = std::make_unique<CublasGroupedGemm>(rows_, 2 * N, K, x_.data(), concatenated_.data(), h_.data());
    auto grouped = [this, N, total](int, cudaStream_t s) {
      grouped_->run(s);
      act_mul(h_.data(), 2 * N, grouped_out_.data(), N, total, N, DType::kBF16, GatedActivation::kSwiGLU, s);
    };
    add(make_row("cublas_grouped+act", "cublasGemmGroupedBatchedEx + act_mul"), grouped, grouped_out_,
        testing::Judge::kBaseline);
  }

  void measure(std::vector<Row>* rows) {
    std::map<std::string, double> us = time_contenders(&contenders_, options_.timing);
    for (auto& c : contenders_) {
      Row& r = c.row;
      const double t = r.timing.median_us;
      r.extra["pct_of_read_bw"] = pct_of_read_bw(ceilings_, touched_weight_bytes(), t);
      r.extra["pct_of_roofline"] = 100.0 * roofline_floor_us(ceilings_, r.flops, r.bytes) / t;
      if (r.impl == "epifuse") {
        r.extra["vs_cublaslt_loop+act"] = us["cublaslt_loop+act"] / t;
        r.extra["vs_cublas_grouped+act"] = us["cublas_grouped+act"] / t;
      }
      std::fprintf(stderr, "[moe] %-14s %-7s T %5lld rows %6lld  %-20s %10.1f us  %5.1f %% of read  %s\n",
                   s_.model.c_str(), s_.routing.c_str(), static_cast<long long>(s_.M), static_cast<long long>(r.M),
                   r.impl.c_str(), t, r.extra["pct_of_read_bw"].get<double>(), r.check.c_str());
      rows->push_back(r);
    }
  }

  struct Checked {
    std::size_t expert;
    std::unique_ptr<testing::GatedProblem> problem;
  };

  const SuiteOptions& options_;
  const Ceilings& ceilings_;
  Shape s_;
  MoeModel m_;
  std::vector<std::int64_t> rows_;      // per expert
  std::vector<std::int32_t> offsets_;   // [E + 1]
  std::int64_t total_ = 0;
  std::vector<Checked> checked_;
  DeviceBuffer x_, concatenated_, packed_, h_, fused_out_, loop_out_, grouped_out_, offsets_buffer_, workspace_;
  GroupedGatedMlpArgs args_;
  std::map<std::int64_t, std::unique_ptr<CublasLtGemm>> lt_;  // by row count
  std::unique_ptr<CublasGroupedGemm> grouped_;
  std::vector<Contender> contenders_;
};

Status validate(const Shape& s) {
  if (s.suite != "moe") {
    return Status::invalid_argument("the moe suite measures catalogue MoE models by routing: use --model with --tokens, "
                                    "not --shape, --grid or --random");
  }
  try {
    moe_model(s.model);
    parse_routing(s.routing);
  } catch (const std::invalid_argument& e) {
    return Status::invalid_argument(e.what());
  }
  return Status::success();
}

void print_plan(const std::vector<Shape>& shapes) {
  fmt::print("epifuse-bench moe would run, per model, token count and routing (uniform, Zipf, hot): the\n"
             "grouped gate/up GEMM of the routed experts (epifuse::grouped_gated_mlp, SwiGLU), a loop of\n"
             "cuBLASLt GEMMs over the non-empty experts + one act*mul kernel, and cuBLAS's grouped GEMM\n"
             "+ act*mul; each checked on up to 4 experts against fp64, then timed interleaved.\n\n");
  for (const Shape& s : shapes) {
    const MoeModel m = moe_model(s.model);
    fmt::print("  {:<15} T {:>5}  {:<7}  E {:>3}  top-{}  N {:>5}  K {:>5}\n", s.model, s.M, s.routing, m.experts,
               m.topk, m.N, m.K);
  }
}

}  // namespace

Suite moe_suite() {
  Suite s;
  s.name = "moe";
  s.description = "the grouped gate/up GEMM of MoE experts against a cuBLASLt loop and cuBLAS's grouped GEMM";
  s.shape_help = "not used: the moe suite takes --model (a catalogue MoE model) and --tokens";
  s.gated_model_gemms = true;
  s.model_tokens = kMoeTokens;
  s.shapes_for_model = &moe_shapes;
  for (const char* model : kMoeModels) {
    const std::vector<Shape> m = moe_shapes(model, kMoeTokens);
    s.default_shapes.insert(s.default_shapes.end(), m.begin(), m.end());
  }
  s.timing = {200.0, 8, 1, 20};
  s.quick_timing = {60.0, 4, 1, 10};
  s.validate = &validate;
  s.print_plan = &print_plan;
  s.run_shape = [](const SuiteOptions& options, const DeviceFacts&, const Ceilings& ceilings, const Shape& shape,
                   std::vector<Row>* rows) { MoeShapeRun(options, ceilings, shape).run(rows); };
  return s;
}

}  // namespace epifuse::bench

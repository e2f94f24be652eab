// The grouped gated MLP against the fp64 reference, expert by expert: each expert is a gated case
// of its own (random x rows, gate and up weights, packed on the device), its rows copied into one
// [T, K] activation and its packed weight into one [E, 2N, K] stack; the grouped call's output rows
// of each expert are checked by the one-rounding rule as that expert's own call would be. Empty
// experts, all rows on one expert, T = 1, every grouped kernel forced, offsets out of range, CUDA-graph
// capture with the routing changed between replays, a thread's first call captured in Global
// mode, and rejected calls.
#include <cstdint>
#include <memory>
#include <numeric>
#include <optional>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include "epifuse/grouped_gated_mlp.hpp"
#include "epifuse/tuning.hpp"
#include "tests/gpu/gpu_test.hpp"

namespace epifuse::testing {
namespace {

struct GroupedCase {
  std::vector<std::int64_t> rows;  // per expert
  std::int64_t N = 1000, K = 520;
  GatedActivation activation = GatedActivation::kSwiGLU;
  bool bias = true;
  std::string kernel;  // forced by name; empty: dispatch
  std::int64_t max_expert_rows = 0;  // the caller's bound (0: none); it may be wrong
  int splits = 1;                    // the forced kernel's (a warp-mma kernel's cluster shares)

  std::string name() const {
    std::string s = "E" + std::to_string(rows.size()) + "_T" +
                    std::to_string(std::accumulate(rows.begin(), rows.end(), std::int64_t{0})) + "_N" +
                    std::to_string(N) + "_K" + std::to_string(K) + "_" + to_string(activation) + (bias ? "_bias" : "");
    if (max_expert_rows > 0) s += "_bound" + std::to_string(max_expert_rows);
    if (splits > 1) s += "_splits" + std::to_string(splits);
    return kernel.empty() ? s : s + "_" + kernel;
  }
};

// The experts' problems and the stacked operands of the grouped call.
class GroupedProblem {
 public:
  GroupedProblem(const GroupedCase& c, std::uint64_t seed) : case_(c) {
    const std::int64_t E = static_cast<std::int64_t>(c.rows.size());
    offsets_.push_back(0);
    for (std::int64_t r : c.rows) offsets_.push_back(offsets_.back() + static_cast<std::int32_t>(r));
    T_ = offsets_.back();
    const std::size_t element = 2, weight = static_cast<std::size_t>(2 * c.N * c.K);
    x_ = DeviceBuffer(static_cast<std::size_t>(T_ > 0 ? T_ : 1) * c.K * element);
    weights_ = DeviceBuffer(static_cast<std::size_t>(E) * weight * element);
    biases_ = DeviceBuffer(static_cast<std::size_t>(E) * 2 * c.N * sizeof(float));
    out_ = DeviceBuffer(static_cast<std::size_t>(T_ > 0 ? T_ : 1) * c.N * element);
    offsets_buffer_ = DeviceBuffer((E + 1) * sizeof(std::int32_t));
    // An empty expert's weight and bias stay NaN: a tile computed from them would show.
    weights_.poison();
    biases_.poison();
    for (std::int64_t e = 0; e < E; ++e) {
      if (c.rows[e] == 0) {
        experts_.emplace_back();
        continue;
      }
      GatedCase g{c.rows[e], c.N, c.K, DType::kBF16, c.activation, c.bias};
      experts_.push_back(std::make_unique<GatedProblem>(g, seed + static_cast<std::uint64_t>(e)));
      const GatedMlpArgs& a = experts_.back()->args();
      EPIFUSE_CHECK_CUDA(cudaMemcpy(x_.as<char>() + offsets_[e] * c.K * element, a.x, c.rows[e] * c.K * element,
                                    cudaMemcpyDeviceToDevice));
      EPIFUSE_CHECK_CUDA(cudaMemcpy(weights_.as<char>() + e * weight * element, a.w.weight, weight * element,
                                    cudaMemcpyDeviceToDevice));
      if (c.bias) {
        EPIFUSE_CHECK_CUDA(cudaMemcpy(biases_.as<float>() + e * 2 * c.N, a.w.bias, 2 * c.N * sizeof(float),
                                      cudaMemcpyDeviceToDevice));
      }
    }
    set_offsets(offsets_);

    GatedMlpArgs& g = args_.gated;
    g.M = T_;
    g.N = c.N;
    g.x = x_.data();
    g.ldx = c.K;
    g.w = first_weight().args().w;
    g.w.weight = weights_.data();
    g.w.bias = c.bias ? biases_.as<float>() : nullptr;
    g.out = out_.data();
    g.ldo = c.N;
    g.activation = c.activation;
    if (!c.kernel.empty()) g.kernel = KernelChoice{*find_kernel(c.kernel), RasterOrder::kHeuristic, 1, c.splits};
    args_.experts = E;
    args_.expert_offsets = offsets_buffer_.as<std::int32_t>();
    args_.weight_stride = static_cast<std::int64_t>(weight);
    args_.bias_stride = 2 * c.N;
    args_.max_expert_rows = c.max_expert_rows;
    std::size_t bytes = 0;
    const Status s = grouped_gated_mlp_workspace_size(args_, nullptr, &bytes);
    if (!s.ok()) throw std::runtime_error("workspace query: " + s.to_string());
    workspace_ = DeviceBuffer(bytes > 0 ? bytes : 1);
    g.workspace = workspace_.data();
    g.workspace_bytes = bytes;
  }

  const GroupedGatedMlpArgs& args() const { return args_; }
  const DeviceBuffer& out() const { return out_; }
  std::int64_t tokens() const { return T_; }
  void set_offsets(const std::vector<std::int32_t>& offsets) {
    offsets_buffer_.upload(offsets.data(), offsets.size() * sizeof(std::int32_t));
  }
  void poison() {
    out_.poison();
    workspace_.poison();
  }

  // Expert e's rows against its own reference (empty when they pass).
  std::string check_expert(std::size_t e) const {
    if (!experts_[e]) return "";
    const GatedReport r = check_gated_output(*experts_[e], out_.as<char>() + offsets_[e] * case_.N * 2, case_.N);
    return r.passed ? "" : "expert " + std::to_string(e) + ":\n" + r.text;
  }
  // Every expert's rows, and nothing written past out.
  std::string check() const {
    std::string failures;
    for (std::size_t e = 0; e < experts_.size(); ++e) failures += check_expert(e);
    if (!out_.guard_intact()) failures += "bytes past the end of out were written\n";
    return failures;
  }

 private:
  const GatedProblem& first_weight() const {
    for (const auto& p : experts_) {
      if (p) return *p;
    }
    throw std::runtime_error("a grouped case needs one expert with rows");
  }

  GroupedCase case_;
  std::vector<std::int32_t> offsets_;
  std::int64_t T_ = 0;
  std::vector<std::unique_ptr<GatedProblem>> experts_;
  DeviceBuffer x_, weights_, biases_, out_, offsets_buffer_, workspace_;
  GroupedGatedMlpArgs args_;
};

class GroupedGatedTest : public ::testing::TestWithParam<GroupedCase> {
 protected:
  void SetUp() override { EPIFUSE_REQUIRE_HOPPER(); }
};

TEST_P(GroupedGatedTest, EveryExpertMatchesItsReference) {
  const GroupedCase& c = GetParam();
  GroupedProblem p(c, case_seed(c.name()));
  p.poison();
  ASSERT_TRUE(grouped_gated_mlp(p.args(), nullptr).ok());
  EPIFUSE_CHECK_CUDA(cudaDeviceSynchronize());
  const std::string failures = p.check();
  EXPECT_TRUE(failures.empty()) << failures;
}

// 17 experts of 150 rows and 17 of 200, then 0, 64, 65 and 300: each wide tier's token tiles times
// the weight's 128-row tiles (8 for N = 1000 in the grouped GEMM, 16 gated) fill 132 SMs once.
std::vector<std::int64_t> wide_tier_rows() {
  std::vector<std::int64_t> rows(17, 150);
  rows.insert(rows.end(), 17, 200);
  rows.insert(rows.end(), {0, 64, 65, 300});
  return rows;
}

// Experts for the paired tier (two 128-row token tiles per cluster): last pairs 0.85-1.0 full
// (218, 230, 256, 480, 736 rows: 14 pairs, times the weight's 16 tiles, fill 132 SMs once) beside
// 217 rows (0.848: the unswapped kernel) and a few others.
std::vector<std::int64_t> paired_tier_rows() {
  std::vector<std::int64_t> rows(5, 256);
  rows.insert(rows.end(), 3, 230);
  rows.insert(rows.end(), {218, 480, 736, 217, 0, 64, 300});
  return rows;
}

// E experts, 1 or 2 rows on every seventh, some past the first 256.
std::vector<std::int64_t> scattered_rows(std::int64_t E) {
  std::vector<std::int64_t> rows(static_cast<std::size_t>(E), 0);
  for (std::int64_t e = 3; e < E; e += 7) rows[static_cast<std::size_t>(e)] = 1 + e % 2;
  return rows;
}

std::vector<GroupedCase> cases() {
  std::vector<GroupedCase> out;
  const std::vector<std::int64_t> ragged = {0, 1, 37, 200, 0, 3, 129, 64};
  for (const KernelKey& k : compiled_kernels(Op::kGatedMlp)) {  // every grouped kernel forced
    if (k.grouping != Grouping::kGrouped) continue;
    const std::string kernel = name(k);
    out.push_back({ragged, 1000, 520, GatedActivation::kSwiGLU, true, kernel});
    out.push_back({{0, 0, 300, 0}, 1000, 520, GatedActivation::kGeGLUTanh, false, kernel});  // one hot expert
    out.push_back({{0, 0, 0, 0, 0, 1, 0, 0}, 1000, 520, GatedActivation::kReGLU, true, kernel});  // T = 1
    if (k.schedule == Schedule::kWarpMma) {  // 4 CTAs of a cluster share the K loop, pass after pass
      out.push_back({ragged, 1000, 520, GatedActivation::kSwiGLU, true, kernel, 0, 4});
      // Three passes over 20 rows, K off the 64-element step.
      out.push_back({{20, 0, 9, 3}, 4096, 1000, GatedActivation::kGeGLUErf, true, kernel});
    }
  }
  // Experts on both sides of each tier's rows (64, 128, 160, 208); the wide tiers' few tiles run on
  // the unswapped kernel. Then enough experts of 150 and 200 rows for the wide kernels' launches.
  out.push_back({{64, 65, 160, 161, 208, 209, 0, 300}, 1000, 520, GatedActivation::kSwiGLU, true, ""});
  out.push_back({wide_tier_rows(), 1000, 520, GatedActivation::kSwiGLU, true, ""});
  out.push_back({paired_tier_rows(), 1000, 520, GatedActivation::kGeGLUTanh, true, ""});
  out.push_back({{5, 9, 0, 17, 2, 1, 33, 8, 4, 0, 11, 7, 3, 6, 2, 1}, 2048, 7168, GatedActivation::kSwiGLU, false, ""});
  out.push_back({{1100, 950}, 1024, 4096, GatedActivation::kGeGLUErf, true, ""});
  // A bound of 64 rows per expert runs the few-rows kernel alone: right where it holds, and where
  // experts of 129 and 200 rows break it.
  out.push_back({{5, 9, 0, 17, 2, 1, 33, 8}, 1000, 520, GatedActivation::kSwiGLU, true, "", 64});
  out.push_back({ragged, 1000, 520, GatedActivation::kSwiGLU, true, "", 64});
  // A bound of 2 rows per expert on small weights runs the warp-mma kernel alone: right where the
  // bound holds, and where experts of 3-200 rows break it (it streams their weight once per 8
  // rows); 300 experts, past the 256 whose offsets its lookup loads at once.
  out.push_back({{1, 0, 2, 1, 0, 0, 2, 2}, 1000, 520, GatedActivation::kGeGLUTanh, true, "", 2});
  out.push_back({{5, 0, 8, 1, 0, 3, 9, 2}, 1000, 520, GatedActivation::kSwiGLU, true, "", 2});
  out.push_back({ragged, 1000, 520, GatedActivation::kSwiGLU, true, "", 2});
  out.push_back({scattered_rows(300), 256, 128, GatedActivation::kSwiGLU, true, "", 2});
  out.push_back({{2, 0, 1}, 256, 8200, GatedActivation::kSwiGLU, true, "", 2});  // long rows: the singles
  // Two experts of 2 x 7168 x 4096 at one row each: 235 MB in 224 of the 128x32 kernel's tiles, 0.85
  // of 132 SMs over its two waves, so the warp-mma kernel's pairs.
  out.push_back({{1, 1}, 7168, 4096, GatedActivation::kSwiGLU, true, "", 1});
  // Experts of 24576 packed rows with a bound of 8 rows each: the warp-mma kernel's pairs, one pass
  // over each weight for 3-8 rows.
  out.push_back({{8, 0, 3, 5}, 12288, 256, GatedActivation::kSwiGLU, true, "", 8});
  return out;
}

INSTANTIATE_TEST_SUITE_P(Experts, GroupedGatedTest, ::testing::ValuesIn(cases()), param_name<GroupedCase>);

class GroupedGatedBehavior : public ::testing::Test {
 protected:
  void SetUp() override { EPIFUSE_REQUIRE_HOPPER(); }
};

// Offsets past T, negative or decreasing are clamped on the device to a running maximum inside
// [0, T]: {-5, 40, 30, 200000, 7} runs expert 0 on rows [0, 40), expert 2 on [40, 160) and
// experts 1 and 3 on none. Nothing is read or written out of bounds (compute-sanitizer runs these
// cases) and expert 0's rows are still its own.
void expect_clamped(GroupedProblem& p) {
  p.set_offsets({-5, 40, 30, 200000, 7});
  p.poison();
  ASSERT_TRUE(grouped_gated_mlp(p.args(), nullptr).ok());
  EPIFUSE_CHECK_CUDA(cudaDeviceSynchronize());
  EXPECT_TRUE(p.out().guard_intact());
  const std::string failures = p.check_expert(0);
  EXPECT_TRUE(failures.empty()) << failures;
  const std::vector<std::uint8_t> out = p.out().download();
  for (std::size_t i = 0; i < out.size(); i += 2) {
    ASSERT_FALSE(out[i] == kPoisonByte && out[i + 1] == kPoisonByte) << "row " << i / 2000 << " not written";
  }
}

TEST_F(GroupedGatedBehavior, OffsetsOutOfRangeAreClamped) {
  GroupedCase c{{40, 40, 40, 40}, 1000, 520, GatedActivation::kSwiGLU, true, ""};
  GroupedProblem p(c, case_seed(c.name()));
  expect_clamped(p);
}

// The same on the warp-mma kernel (a bound of 2 rows that these experts break).
TEST_F(GroupedGatedBehavior, OffsetsOutOfRangeAreClampedOnTheWarpMmaKernel) {
  GroupedCase c{{40, 40, 40, 40}, 1000, 520, GatedActivation::kSwiGLU, true, "", 2};
  GroupedProblem p(c, case_seed(c.name()));
  expect_clamped(p);
}

// Captured once; the routing changes on the device between replays, and each replay follows it.
TEST_F(GroupedGatedBehavior, CudaGraphFollowsTheRoutingOnTheDevice) {
  GroupedCase c{{0, 120, 8, 0, 33, 0, 0, 95}, 1000, 520, GatedActivation::kSwiGLU, true, ""};
  GroupedProblem p(c, case_seed(c.name()));
  cudaStream_t stream;
  EPIFUSE_CHECK_CUDA(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
  ASSERT_TRUE(grouped_gated_mlp(p.args(), stream).ok());  // the first call outside capture
  cudaGraph_t graph;
  cudaGraphExec_t exec;
  EPIFUSE_CHECK_CUDA(cudaStreamBeginCapture(stream, cudaStreamCaptureModeThreadLocal));
  const Status s = grouped_gated_mlp(p.args(), stream);
  EPIFUSE_CHECK_CUDA(cudaStreamEndCapture(stream, &graph));
  ASSERT_TRUE(s.ok()) << s.to_string();
  EPIFUSE_CHECK_CUDA(cudaGraphInstantiate(&exec, graph, 0));
  // First everything on expert 7 (its weight applied to every row), then the true routing.
  const std::vector<std::int32_t> all_on_7 = {0, 0, 0, 0, 0, 0, 0, 0, 256};
  p.set_offsets(all_on_7);
  p.poison();
  EPIFUSE_CHECK_CUDA(cudaGraphLaunch(exec, stream));
  EPIFUSE_CHECK_CUDA(cudaStreamSynchronize(stream));
  const std::vector<std::uint8_t> hot = p.out().download();
  for (std::size_t i = 0; i < hot.size(); i += 2) ASSERT_FALSE(hot[i] == kPoisonByte && hot[i + 1] == kPoisonByte);
  p.set_offsets({0, 0, 120, 128, 128, 161, 161, 161, 256});
  p.poison();
  EPIFUSE_CHECK_CUDA(cudaGraphLaunch(exec, stream));
  EPIFUSE_CHECK_CUDA(cudaStreamSynchronize(stream));
  const std::string failures = p.check();
  EXPECT_TRUE(failures.empty()) << failures;
  EPIFUSE_CHECK_CUDA(cudaGraphExecDestroy(exec));
  EPIFUSE_CHECK_CUDA(cudaGraphDestroy(graph));
  EPIFUSE_CHECK_CUDA(cudaStreamDestroy(stream));
}

// A host thread's first grouped call, made under a Global-mode capture (the setup kernel and every
// launch a tier gets, experts of 8-200 rows), replayed and checked; then the same call eager.
TEST_F(GroupedGatedBehavior, CapturedAsTheThreadsFirstCallAndThenEager) {
  GroupedCase c{{0, 120, 8, 0, 33, 0, 0, 95, 140, 200}, 1000, 520, GatedActivation::kSwiGLU, true, ""};
  GroupedProblem p(c, case_seed(c.name()));
  std::thread([&p] {
    cudaStream_t stream;
    EPIFUSE_CHECK_CUDA(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
    cudaGraph_t graph;
    cudaGraphExec_t exec;
    EPIFUSE_CHECK_CUDA(cudaStreamBeginCapture(stream, cudaStreamCaptureModeGlobal));
    const Status s = grouped_gated_mlp(p.args(), stream);
    const cudaError_t captured = cudaStreamEndCapture(stream, &graph);
    ASSERT_TRUE(s.ok()) << s.to_string();
    ASSERT_EQ(captured, cudaSuccess) << cudaGetErrorString(captured);
    EPIFUSE_CHECK_CUDA(cudaGraphInstantiate(&exec, graph, 0));
    p.poison();
    EPIFUSE_CHECK_CUDA(cudaGraphLaunch(exec, stream));
    EPIFUSE_CHECK_CUDA(cudaStreamSynchronize(stream));
    EXPECT_TRUE(p.out().guard_intact());
    const std::string in_graph = p.check();
    EXPECT_TRUE(in_graph.empty()) << in_graph;
    p.poison();
    ASSERT_TRUE(grouped_gated_mlp(p.args(), stream).ok());
    EPIFUSE_CHECK_CUDA(cudaStreamSynchronize(stream));
    EXPECT_TRUE(p.out().guard_intact());
    const std::string eager = p.check();
    EXPECT_TRUE(eager.empty()) << eager;
    EPIFUSE_CHECK_CUDA(cudaGraphExecDestroy(exec));
    EPIFUSE_CHECK_CUDA(cudaGraphDestroy(graph));
    EPIFUSE_CHECK_CUDA(cudaStreamDestroy(stream));
  }).join();
}

TEST_F(GroupedGatedBehavior, RejectedCallsLeaveTheOutputUntouched) {
  // 9 rows: dispatch picks a kernel that needs a workspace (at most 2 it may need none).
  GroupedCase c{{3, 6}, 1000, 520, GatedActivation::kSwiGLU, true, ""};
  GroupedProblem p(c, case_seed(c.name()));
  p.poison();
  GroupedGatedMlpArgs no_experts = p.args();
  no_experts.experts = 0;
  GroupedGatedMlpArgs no_offsets = p.args();
  no_offsets.expert_offsets = nullptr;
  GroupedGatedMlpArgs short_stride = p.args();
  short_stride.weight_stride = 8;
  GroupedGatedMlpArgs dense_kernel = p.args();
  for (const KernelKey& k : compiled_kernels(Op::kGatedMlp)) {
    if (k.grouping == Grouping::kNone) dense_kernel.gated.kernel = KernelChoice{k};
  }
  GroupedGatedMlpArgs no_workspace = p.args();
  no_workspace.gated.workspace = nullptr;
  no_workspace.gated.workspace_bytes = 0;
  expect_rejected(grouped_gated_mlp(no_experts, nullptr), StatusCode::kInvalidArgument, "experts (0) must be >= 1");
  expect_rejected(grouped_gated_mlp(no_offsets, nullptr), StatusCode::kInvalidArgument, "expert_offsets");
  expect_rejected(grouped_gated_mlp(short_stride, nullptr), StatusCode::kInvalidArgument, "weight_stride (8)");
  expect_rejected(grouped_gated_mlp(dense_kernel, nullptr), StatusCode::kInvalidArgument, "is not a grouped kernel");
  expect_rejected(grouped_gated_mlp(no_workspace, nullptr), StatusCode::kInvalidArgument, "workspace");
  EPIFUSE_CHECK_CUDA(cudaDeviceSynchronize());
  for (std::uint8_t b : p.out().download()) ASSERT_EQ(b, kPoisonByte);
}

TEST_F(GroupedGatedBehavior, NoTokensIsANoOp) {
  GroupedCase c{{2, 2}, 1000, 520, GatedActivation::kSwiGLU, true, ""};
  GroupedProblem p(c, case_seed(c.name()));
  p.poison();
  GroupedGatedMlpArgs args = p.args();
  args.gated.M = 0;
  ASSERT_TRUE(grouped_gated_mlp(args, nullptr).ok());
  EPIFUSE_CHECK_CUDA(cudaDeviceSynchronize());
  for (std::uint8_t b : p.out().download()) ASSERT_EQ(b, kPoisonByte);
}

}  // namespace
}  // namespace epifuse::testing

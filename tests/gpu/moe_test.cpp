// The grouped GEMM and the MoE layer against fp64 references computed on the host from the same
// bf16 values the GPU reads (drawn here, seeded per case).
// - grouped_gemm: each expert's rows judged by the one-rounding rule as that expert's own GEMM
//   would be; ragged, empty and single-row experts, every grouped kernel forced, offsets clamped.
// - moe_mlp: y against the fp64 layer (no intermediate rounding), by the rule for paths that round
//   more than once (it rounds the gated activations, the experts' rows and y): in relative L2
//   within 2x the eager bf16 path's own error (gate/up, act·mul, down and the weighted sum each
//   rounded), which is also computed here; per element, see MoeProblem::check. Dropped expert ids and their count, a shared output added in place,
//   T = 1, one hot expert, bit-exact determinism, CUDA-graph replays following new routings,
//   T = 0, and rejected calls that write nothing.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <random>
#include <stdexcept>
#include <string>
#include <vector>

#include "epifuse/grouped_gemm.hpp"
#include "epifuse/moe_mlp.hpp"
#include "epifuse/packing/gate_up.hpp"
#include "epifuse/tuning.hpp"
#include "reference/gated.hpp"
#include "reference/numeric.hpp"
#include "testing/accuracy.hpp"
#include "testing/tolerances.hpp"
#include "tests/gpu/gpu_test.hpp"

namespace epifuse::testing {
namespace {

// bf16 values drawn from U(-scale, scale): the bits the GPU reads and their exact values.
struct Bf16Values {
  std::vector<std::uint16_t> bits;
  std::vector<float> values;
};

Bf16Values draw(std::mt19937_64& rng, std::size_t count, float scale) {
  std::uniform_real_distribution<float> u(-scale, scale);
  Bf16Values v;
  v.bits.resize(count);
  v.values.resize(count);
  for (std::size_t i = 0; i < count; ++i) {
    v.bits[i] = reference::float_to_bf16(u(rng));
    v.values[i] = reference::bf16_to_float(v.bits[i]);
  }
  return v;
}

DeviceBuffer upload(const void* host, std::size_t bytes) {
  DeviceBuffer b(std::max<std::size_t>(bytes, 16));
  b.poison();
  b.upload(host, bytes);
  return b;
}

std::vector<double> download_bf16(const DeviceBuffer& b, std::size_t count) {
  const std::vector<std::uint8_t> raw = b.download();
  std::vector<double> out(count);
  for (std::size_t i = 0; i < count; ++i) out[i] = reference::load_as_float(raw.data(), DType::kBF16, static_cast<std::int64_t>(i));
  return out;
}

// ---- grouped_gemm ------------------------------------------------------------------------------

struct GroupedGemmCase {
  std::vector<std::int32_t> rows;  // per expert
  std::int64_t N = 1000, K = 520;
  std::string kernel;  // forced by name; empty: dispatch
  std::int64_t max_expert_rows = 0;  // the caller's bound (0: none); it may be wrong
  int splits = 1;                    // the forced kernel's (a warp-mma kernel's cluster shares)

  std::string name() const {
    std::int64_t T = 0;
    for (auto r : rows) T += r;
    return "E" + std::to_string(rows.size()) + "_T" + std::to_string(T) + "_N" + std::to_string(N) + "_K" +
           std::to_string(K) + (max_expert_rows > 0 ? "_bound" + std::to_string(max_expert_rows) : "") +
           (splits > 1 ? "_splits" + std::to_string(splits) : "") + (kernel.empty() ? "" : "_" + kernel);
  }
};

class GroupedGemmProblem {
 public:
  GroupedGemmProblem(const GroupedGemmCase& c, std::uint64_t seed) : c_(c) {
    std::mt19937_64 rng(seed);
    const auto E = static_cast<std::int64_t>(c.rows.size());
    offsets_.push_back(0);
    for (std::int32_t r : c.rows) offsets_.push_back(offsets_.back() + r);
    T_ = offsets_.back();
    a_ = draw(rng, static_cast<std::size_t>(std::max<std::int64_t>(T_, 1) * c.K), 1.0f);
    b_ = draw(rng, static_cast<std::size_t>(E * c.N * c.K), 1.0f / std::sqrt(static_cast<float>(c.K)));
    a_buf_ = upload(a_.bits.data(), a_.bits.size() * 2);
    b_buf_ = upload(b_.bits.data(), b_.bits.size() * 2);
    d_buf_ = DeviceBuffer(static_cast<std::size_t>(std::max<std::int64_t>(T_, 1) * c.N * 2));
    offsets_buf_ = upload(offsets_.data(), offsets_.size() * 4);
    GemmArgs& g = args_.gemm;
    g.M = T_;
    g.N = c.N;
    g.K = c.K;
    g.A = a_buf_.data();
    g.lda = c.K;
    g.B = b_buf_.data();
    g.ldb = c.K;
    g.D = d_buf_.data();
    g.ldd = c.N;
    if (!c.kernel.empty()) g.kernel = KernelChoice{*find_kernel(c.kernel), RasterOrder::kHeuristic, 1, c.splits};
    args_.experts = E;
    args_.expert_offsets = offsets_buf_.as<std::int32_t>();
    args_.weight_stride = c.N * c.K;
    args_.max_expert_rows = c.max_expert_rows;
    std::size_t bytes = 0;
    EXPECT_TRUE(grouped_gemm_workspace_size(args_, nullptr, &bytes).ok());
    workspace_ = DeviceBuffer(std::max<std::size_t>(bytes, 16));
    g.workspace = workspace_.data();
    g.workspace_bytes = bytes;
  }

  const GroupedGemmArgs& args() const { return args_; }
  const DeviceBuffer& d() const { return d_buf_; }
  void set_offsets(const std::vector<std::int32_t>& offsets) { offsets_buf_.upload(offsets.data(), offsets.size() * 4); }
  void poison() {
    d_buf_.poison();
    workspace_.poison();
  }

  // Expert e's rows [begin, end) of D against x·B[e]ᵀ in fp64 (empty when they pass).
  std::string check_rows(std::int64_t e, std::int64_t begin, std::int64_t end) const {
    if (end <= begin) return "";
    const std::vector<double> all = download_bf16(d_buf_, static_cast<std::size_t>(T_ * c_.N));
    std::vector<double> got, ref;
    for (std::int64_t r = begin; r < end; ++r) {
      for (std::int64_t n = 0; n < c_.N; ++n) {
        double acc = 0;
        const float* x = &a_.values[r * c_.K];
        const float* w = &b_.values[(e * c_.N + n) * c_.K];
        for (std::int64_t k = 0; k < c_.K; ++k) acc += static_cast<double>(x[k]) * w[k];
        ref.push_back(acc);
        got.push_back(all[r * c_.N + n]);
      }
    }
    const Accuracy a = judge_fused(got, ref, DType::kBF16, c_.K);
    return a.passed ? "" : "expert " + std::to_string(e) + ": " + a.to_string() + "\n" + a.failures();
  }
  std::string check() const {
    std::string failures;
    for (std::size_t e = 0; e + 1 < offsets_.size(); ++e) {
      failures += check_rows(static_cast<std::int64_t>(e), offsets_[e], offsets_[e + 1]);
    }
    if (!d_buf_.guard_intact()) failures += "bytes past the end of D were written\n";
    return failures;
  }

 private:
  GroupedGemmCase c_;
  std::vector<std::int32_t> offsets_;
  std::int64_t T_ = 0;
  Bf16Values a_, b_;
  DeviceBuffer a_buf_, b_buf_, d_buf_, offsets_buf_, workspace_;
  GroupedGemmArgs args_;
};

class GroupedGemmTest : public ::testing::TestWithParam<GroupedGemmCase> {
 protected:
  void SetUp() override { EPIFUSE_REQUIRE_HOPPER(); }
};

TEST_P(GroupedGemmTest, EveryExpertMatchesItsReference) {
  const GroupedGemmCase& c = GetParam();
  GroupedGemmProblem p(c, case_seed(c.name()));
  p.poison();
  const Status s = grouped_gemm(p.args(), nullptr);
  ASSERT_TRUE(s.ok()) << s.to_string();
  EPIFUSE_CHECK_CUDA(cudaDeviceSynchronize());
  const std::string failures = p.check();
  EXPECT_TRUE(failures.empty()) << failures;
}

std::vector<GroupedGemmCase> grouped_gemm_cases() {
  std::vector<GroupedGemmCase> out;
  const std::vector<std::int32_t> ragged = {0, 1, 37, 200, 0, 3, 129, 64};
  for (const KernelKey& k : compiled_kernels(Op::kGemm)) {  // every grouped kernel forced
    if (k.grouping != Grouping::kGrouped) continue;
    out.push_back({ragged, 1000, 520, name(k)});
    out.push_back({{0, 0, 0, 1}, 1000, 520, name(k)});  // T = 1
    if (k.schedule == Schedule::kWarpMma) {  // 4 CTAs of a cluster share the K loop, pass after pass
      out.push_back({ragged, 1000, 520, name(k), 0, 4});
      // Three passes over 20 rows, N and K off the tiles.
      out.push_back({{20, 0, 9, 3}, 8200, 1000, name(k)});
    }
  }
  out.push_back({{64, 65, 160, 161, 208, 209, 0, 300}, 1000, 520, ""});  // both sides of each tier's rows
  std::vector<std::int32_t> wide(17, 150);  // enough experts for the wide tiers' launches (8 weight tiles each)
  wide.insert(wide.end(), 17, 200);
  wide.insert(wide.end(), {0, 64, 65, 300});
  out.push_back({wide, 1000, 520, ""});
  out.push_back({ragged, 520, 1000, ""});
  out.push_back({{5, 9, 0, 17, 2, 1, 33, 8, 4, 0, 11, 7, 3, 6, 2, 1}, 7168, 256, ""});  // a down projection
  out.push_back({{0, 700, 0}, 4096, 1024, ""});                                        // one hot expert
  // Where the launch model runs every expert in one launch (GroupTiers::one_launch_tier): two
  // experts of 256 rows on the 128x160 kernel, not two tiles each on the unswapped one; and 57-77
  // rows, the few-rows experts with the others, on that kernel too.
  out.push_back({{256, 0, 256}, 512, 4096, ""});
  out.push_back({{77, 59, 63, 57, 59, 67, 64, 66}, 512, 4096, ""});
  out.push_back({ragged, 520, 1000, "", 64});  // a bound of 64 that experts of 129 and 200 rows break
  // The warp-mma kernel (a bound of 2 rows per expert on small weights): a bound that holds, one
  // that 3-200 rows break, and 300 experts (past the 256 whose offsets its lookup loads at once).
  out.push_back({{1, 0, 2, 1, 0, 0, 2, 2}, 7168, 256, "", 2});
  out.push_back({{5, 0, 8, 1, 0, 3, 9, 2}, 7168, 256, "", 2});
  out.push_back({ragged, 1000, 520, "", 2});
  std::vector<std::int32_t> scattered(300, 0);
  for (std::size_t e = 3; e < scattered.size(); e += 7) scattered[e] = static_cast<std::int32_t>(1 + e % 2);
  out.push_back({scattered, 264, 128, "", 2});
  out.push_back({{2, 0, 1}, 520, 8200, "", 2});  // long rows: the wide CTAs
  return out;
}

INSTANTIATE_TEST_SUITE_P(Experts, GroupedGemmTest, ::testing::ValuesIn(grouped_gemm_cases()),
                         param_name<GroupedGemmCase>);

class GroupedGemmBehavior : public ::testing::Test {
 protected:
  void SetUp() override { EPIFUSE_REQUIRE_HOPPER(); }
};

// As grouped_gated_mlp's: {-5, 40, 30, 200000, 7} runs expert 0 on rows [0, 40) and expert 2 on
// [40, 160); nothing is written out of bounds (compute-sanitizer runs this case).
TEST_F(GroupedGemmBehavior, OffsetsOutOfRangeAreClamped) {
  GroupedGemmProblem p({{40, 40, 40, 40}, 1000, 520, ""}, case_seed("grouped_gemm_clamped"));
  p.set_offsets({-5, 40, 30, 200000, 7});
  p.poison();
  ASSERT_TRUE(grouped_gemm(p.args(), nullptr).ok());
  EPIFUSE_CHECK_CUDA(cudaDeviceSynchronize());
  EXPECT_TRUE(p.d().guard_intact());
  std::string failures = p.check_rows(0, 0, 40) + p.check_rows(2, 40, 160);
  EXPECT_TRUE(failures.empty()) << failures;
}

TEST_F(GroupedGemmBehavior, RejectedCallsLeaveTheOutputUntouched) {
  // 9 rows: dispatch picks a kernel that needs a workspace (at most 2 it may need none).
  GroupedGemmProblem p({{3, 6}, 1000, 520, ""}, case_seed("grouped_gemm_rejected"));
  p.poison();
  GroupedGemmArgs with_alpha = p.args();
  with_alpha.gemm.epilogue.alpha = 0.5f;
  GroupedGemmArgs dense_kernel = p.args();
  dense_kernel.gemm.kernel = KernelChoice{compiled_kernels(Op::kGemm).front()};
  GroupedGemmArgs no_workspace = p.args();
  no_workspace.gemm.workspace = nullptr;
  no_workspace.gemm.workspace_bytes = 0;
  expect_rejected(grouped_gemm(with_alpha, nullptr), StatusCode::kInvalidArgument, "the cast alone");
  expect_rejected(grouped_gemm(dense_kernel, nullptr), StatusCode::kInvalidArgument, "is not a grouped kernel");
  expect_rejected(grouped_gemm(no_workspace, nullptr), StatusCode::kInvalidArgument, "workspace");
  EPIFUSE_CHECK_CUDA(cudaDeviceSynchronize());
  for (std::uint8_t b : p.d().download()) ASSERT_EQ(b, kPoisonByte);
}

// ---- moe_mlp -----------------------------------------------------------------------------------

struct MoeCase {
  std::int64_t T = 37, E = 8, k = 2, K = 512, N = 256;
  GatedActivation activation = GatedActivation::kSwiGLU;
  bool add = false;        // a shared output added in place (add = y)
  int routing = 0;         // 0: k distinct random experts; 1: every token on expert 3 (k = 1); 2: with bad ids
  std::string name() const {
    return "T" + std::to_string(T) + "_E" + std::to_string(E) + "_k" + std::to_string(k) + "_K" + std::to_string(K) +
           "_N" + std::to_string(N) + "_" + to_string(activation) + (add ? "_add" : "") + "_routing" +
           std::to_string(routing);
  }
};

class MoeProblem {
 public:
  MoeProblem(const MoeCase& c, std::uint64_t seed) : c_(c), rng_(seed) {
    x_ = draw(rng_, static_cast<std::size_t>(std::max<std::int64_t>(c.T, 1) * c.K), 1.0f);
    gate_ = draw(rng_, static_cast<std::size_t>(c.E * c.N * c.K), 1.0f / std::sqrt(static_cast<float>(c.K)));
    up_ = draw(rng_, gate_.bits.size(), 1.0f / std::sqrt(static_cast<float>(c.K)));
    down_ = draw(rng_, static_cast<std::size_t>(c.E * c.K * c.N), 1.0f / std::sqrt(static_cast<float>(c.N)));
    shared_ = draw(rng_, x_.bits.size(), 0.5f);
    std::vector<std::uint16_t> packed(static_cast<std::size_t>(c.E * 2 * c.N * c.K));
    PackedGateUp w;
    for (std::int64_t e = 0; e < c.E; ++e) {
      GateUpSource src;
      src.gate = gate_.bits.data() + e * c.N * c.K;
      src.up = up_.bits.data() + e * c.N * c.K;
      src.ld = c.K;
      src.N = c.N;
      src.K = c.K;
      src.dtype = DType::kBF16;
      const Status s = pack_gate_up_host(src, packed.data() + e * 2 * c.N * c.K, nullptr, &w);
      if (!s.ok()) throw std::runtime_error("packing: " + s.to_string());
    }
    x_buf_ = upload(x_.bits.data(), x_.bits.size() * 2);
    packed_buf_ = upload(packed.data(), packed.size() * 2);
    down_buf_ = upload(down_.bits.data(), down_.bits.size() * 2);
    y_buf_ = DeviceBuffer(x_.bits.size() * 2);
    ids_buf_ = DeviceBuffer(static_cast<std::size_t>(std::max<std::int64_t>(c.T * c.k, 1) * 4));
    weights_buf_ = DeviceBuffer(ids_buf_.bytes());
    dropped_buf_ = DeviceBuffer(4);
    route(c.routing);

    args_.tokens = c.T;
    args_.experts = c.E;
    args_.topk = c.k;
    args_.x = x_buf_.data();
    args_.ldx = c.K;
    args_.topk_ids = ids_buf_.as<std::int32_t>();
    args_.topk_weights = weights_buf_.as<float>();
    args_.gate_up = w;
    args_.gate_up.weight = packed_buf_.data();
    args_.gate_up_stride = 2 * c.N * c.K;
    args_.down = down_buf_.data();
    args_.down_stride = c.K * c.N;
    args_.activation = c.activation;
    args_.y = y_buf_.data();
    args_.ldy = c.K;
    if (c.add) {
      args_.add = args_.y;
      args_.ld_add = c.K;
    }
    args_.dropped = dropped_buf_.as<std::int32_t>();
    std::size_t bytes = 0;
    const Status s = moe_mlp_workspace_size(args_, nullptr, &bytes);
    if (!s.ok()) throw std::runtime_error("workspace query: " + s.to_string());
    workspace_ = DeviceBuffer(std::max<std::size_t>(bytes, 16));
    args_.workspace = workspace_.data();
    args_.workspace_bytes = bytes;
  }

  // New routing drawn on the host and uploaded: 0, 1 or 2 as MoeCase::routing.
  void route(int routing) {
    const std::int64_t pairs = c_.T * c_.k;
    ids_.assign(static_cast<std::size_t>(pairs), 0);
    weights_.assign(static_cast<std::size_t>(pairs), 0.0f);
    std::uniform_real_distribution<float> w(0.05f, 1.0f);
    std::vector<std::int32_t> experts(static_cast<std::size_t>(c_.E));
    for (std::int64_t t = 0; t < c_.T; ++t) {
      for (std::int64_t e = 0; e < c_.E; ++e) experts[e] = static_cast<std::int32_t>(e);
      std::shuffle(experts.begin(), experts.end(), rng_);
      for (std::int64_t j = 0; j < c_.k; ++j) {
        std::int32_t id = routing == 1 ? 3 : experts[j];
        if (routing == 2 && (t + j) % 5 == 0) id = (t % 3 == 0) ? -1 : (t % 3 == 1) ? static_cast<std::int32_t>(c_.E) : 1000;
        ids_[t * c_.k + j] = id;
        weights_[t * c_.k + j] = w(rng_);
      }
    }
    if (pairs > 0) {
      ids_buf_.upload(ids_.data(), ids_.size() * 4);
      weights_buf_.upload(weights_.data(), weights_.size() * 4);
    }
  }
  // Sets y to the shared output (read as add when the case adds in place) and poisons the rest.
  void prepare() {
    workspace_.poison();
    dropped_buf_.poison();
    y_buf_.poison();
    if (c_.add) y_buf_.upload(shared_.bits.data(), shared_.bits.size() * 2);
  }

  const MoeMlpArgs& args() const { return args_; }
  const DeviceBuffer& y() const { return y_buf_; }
  std::int32_t dropped() const {
    const std::vector<std::uint8_t> raw = dropped_buf_.download();
    std::int32_t v;
    std::memcpy(&v, raw.data(), 4);
    return v;
  }
  std::int32_t expected_dropped() const {
    return static_cast<std::int32_t>(std::count_if(ids_.begin(), ids_.end(), [&](std::int32_t id) {
      return id < 0 || id >= c_.E;
    }));
  }

  // y against the fp64 layer (empty when it passes): in relative L2 within 2x the eager bf16
  // path's error (judge_baseline); per element within 2·2u of the size of what was rounded, which
  // is each token's weighted rows and add, not y: where two experts' rows nearly cancel, y is
  // small but every row was rounded at its own size.
  std::string check() const {
    const std::int64_t T = c_.T, K = c_.K, N = c_.N;
    std::vector<double> ref(static_cast<std::size_t>(T * K), 0.0), eager(ref.size(), 0.0), rounded_size(ref.size(), 0.0);
    reference::GatedOperands g;
    g.N = N;
    g.K = K;
    g.activation = c_.activation;
    auto bf = [](double v) { return static_cast<double>(reference::round_to(DType::kBF16, v)); };
    std::vector<double> h(static_cast<std::size_t>(N)), h_eager(h.size());
    for (std::int64_t t = 0; t < T; ++t) {
      std::vector<double> eager_sum(static_cast<std::size_t>(K), 0.0);
      for (std::int64_t j = 0; j < c_.k; ++j) {
        const std::int32_t e = ids_[t * c_.k + j];
        if (e < 0 || e >= c_.E) continue;
        const double w = weights_[t * c_.k + j];
        for (std::int64_t n = 0; n < N; ++n) {
          double gate = 0, up = 0;
          const float* x = &x_.values[t * K];
          const float* wg = &gate_.values[(e * N + n) * K];
          const float* wu = &up_.values[(e * N + n) * K];
          for (std::int64_t k = 0; k < K; ++k) {
            gate += static_cast<double>(x[k]) * wg[k];
            up += static_cast<double>(x[k]) * wu[k];
          }
          h[n] = reference::gated_value(g, gate, up);
          h_eager[n] = bf(bf(reference::gated_value(g, bf(gate), 1.0)) * bf(up));
        }
        for (std::int64_t kk = 0; kk < K; ++kk) {
          double acc = 0, acc_eager = 0;
          const float* wd = &down_.values[(e * K + kk) * N];
          for (std::int64_t n = 0; n < N; ++n) {
            acc += h[n] * wd[n];
            acc_eager += h_eager[n] * wd[n];
          }
          ref[t * K + kk] += w * acc;
          rounded_size[t * K + kk] += std::abs(w * acc);
          eager_sum[kk] = bf(eager_sum[kk] + bf(w * bf(acc_eager)));
        }
      }
      for (std::int64_t kk = 0; kk < K; ++kk) {
        const double shared = c_.add ? shared_.values[t * K + kk] : 0.0;
        ref[t * K + kk] += shared;
        rounded_size[t * K + kk] += std::abs(shared);
        eager[t * K + kk] = bf(eager_sum[kk] + shared);
      }
    }
    const std::vector<double> got = download_bf16(y_buf_, static_cast<std::size_t>(T * K));
    const Accuracy a = judge_baseline(got, ref, rel_l2(eager, ref), DType::kBF16, 2.0);
    double mean_square = 0;
    for (double r : ref) mean_square += r * r;
    const double rms = std::sqrt(mean_square / static_cast<double>(std::max<std::size_t>(ref.size(), 1)));
    double worst = 0;
    for (std::size_t i = 0; i < ref.size(); ++i) {
      worst = std::isfinite(got[i]) ? std::max(worst, std::abs(got[i] - ref[i]) / (rounded_size[i] + rms)) : INFINITY;
    }
    const double allowed = 2.0 * baseline_tolerance(DType::kBF16).elem;
    std::string failures;
    if (a.rel_l2 > a.allowed_rel_l2 || a.nonfinite > 0) failures += "y: " + a.to_string() + "\n";
    if (worst > allowed) {
      failures += "y: worst element " + std::to_string(worst) + " of its rounded size, allowed " +
                  std::to_string(allowed) + "\n";
    }
    if (!y_buf_.guard_intact()) failures += "bytes past the end of y were written\n";
    return failures;
  }

 private:
  MoeCase c_;
  std::mt19937_64 rng_;
  Bf16Values x_, gate_, up_, down_, shared_;
  std::vector<std::int32_t> ids_;
  std::vector<float> weights_;
  DeviceBuffer x_buf_, packed_buf_, down_buf_, y_buf_, ids_buf_, weights_buf_, dropped_buf_, workspace_;
  MoeMlpArgs args_;
};

class MoeMlpTest : public ::testing::TestWithParam<MoeCase> {
 protected:
  void SetUp() override { EPIFUSE_REQUIRE_HOPPER(); }
};

TEST_P(MoeMlpTest, MatchesTheFp64Layer) {
  const MoeCase& c = GetParam();
  MoeProblem p(c, case_seed(c.name()));
  p.prepare();
  const Status s = moe_mlp(p.args(), nullptr);
  ASSERT_TRUE(s.ok()) << s.to_string();
  EPIFUSE_CHECK_CUDA(cudaDeviceSynchronize());
  EXPECT_EQ(p.dropped(), p.expected_dropped());
  const std::string failures = p.check();
  EXPECT_TRUE(failures.empty()) << "case " << c.name() << "\n" << failures;
}

std::vector<MoeCase> moe_cases() {
  std::vector<MoeCase> out;
  out.push_back({37, 8, 2, 512, 256, GatedActivation::kSwiGLU, false, 0});
  out.push_back({1, 8, 2, 512, 256, GatedActivation::kSwiGLU, false, 0});  // decode
  out.push_back({130, 16, 4, 1024, 384, GatedActivation::kGeGLUTanh, true, 0});
  out.push_back({90, 8, 1, 512, 256, GatedActivation::kSwiGLU, false, 1});  // one hot expert, k = 1
  out.push_back({61, 8, 2, 512, 256, GatedActivation::kReGLU, true, 2});    // dropped ids
  out.push_back({300, 64, 8, 256, 128, GatedActivation::kSwiGLU, false, 0});
  return out;
}

INSTANTIATE_TEST_SUITE_P(Layers, MoeMlpTest, ::testing::ValuesIn(moe_cases()), param_name<MoeCase>);

class MoeMlpBehavior : public ::testing::Test {
 protected:
  void SetUp() override { EPIFUSE_REQUIRE_HOPPER(); }
};

TEST_F(MoeMlpBehavior, SameInputsGiveTheSameBits) {
  MoeProblem p({200, 16, 4, 512, 256, GatedActivation::kSwiGLU, false, 0}, case_seed("moe_deterministic"));
  p.prepare();
  ASSERT_TRUE(moe_mlp(p.args(), nullptr).ok());
  EPIFUSE_CHECK_CUDA(cudaDeviceSynchronize());
  const std::vector<std::uint8_t> first = p.y().download();
  p.prepare();
  ASSERT_TRUE(moe_mlp(p.args(), nullptr).ok());
  EPIFUSE_CHECK_CUDA(cudaDeviceSynchronize());
  EXPECT_TRUE(first == p.y().download());
}

// Captured once; new routings uploaded between replays, each replay follows its own.
void expect_graph_follows_the_routing(std::int64_t T) {
  MoeProblem p({T, 8, 2, 512, 256, GatedActivation::kSwiGLU, false, 0}, case_seed("moe_graph_T" + std::to_string(T)));
  cudaStream_t stream;
  EPIFUSE_CHECK_CUDA(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
  ASSERT_TRUE(moe_mlp(p.args(), stream).ok());
  EPIFUSE_CHECK_CUDA(cudaStreamSynchronize(stream));
  cudaGraph_t graph;
  cudaGraphExec_t exec;
  EPIFUSE_CHECK_CUDA(cudaStreamBeginCapture(stream, cudaStreamCaptureModeThreadLocal));
  const Status s = moe_mlp(p.args(), stream);
  EPIFUSE_CHECK_CUDA(cudaStreamEndCapture(stream, &graph));
  ASSERT_TRUE(s.ok()) << s.to_string();
  EPIFUSE_CHECK_CUDA(cudaGraphInstantiate(&exec, graph, 0));
  for (int routing : {1, 2, 0}) {
    p.route(routing);
    p.prepare();
    EPIFUSE_CHECK_CUDA(cudaGraphLaunch(exec, stream));
    EPIFUSE_CHECK_CUDA(cudaStreamSynchronize(stream));
    EXPECT_EQ(p.dropped(), p.expected_dropped()) << "routing " << routing;
    const std::string failures = p.check();
    EXPECT_TRUE(failures.empty()) << "routing " << routing << "\n" << failures;
  }
  EPIFUSE_CHECK_CUDA(cudaGraphExecDestroy(exec));
  EPIFUSE_CHECK_CUDA(cudaGraphDestroy(graph));
  EPIFUSE_CHECK_CUDA(cudaStreamDestroy(stream));
}

TEST_F(MoeMlpBehavior, CudaGraphFollowsTheRoutingOnTheDevice) { expect_graph_follows_the_routing(45); }

// At 2 tokens the grouped calls run the warp-mma kernel, which finds its experts on the device.
TEST_F(MoeMlpBehavior, CudaGraphFollowsTheRoutingAtDecode) { expect_graph_follows_the_routing(2); }

TEST_F(MoeMlpBehavior, NoTokensWritesOnlyTheDroppedCount) {
  MoeProblem p({3, 8, 2, 512, 256, GatedActivation::kSwiGLU, false, 0}, case_seed("moe_empty"));
  p.prepare();
  MoeMlpArgs args = p.args();
  args.tokens = 0;
  ASSERT_TRUE(moe_mlp(args, nullptr).ok());
  EPIFUSE_CHECK_CUDA(cudaDeviceSynchronize());
  EXPECT_EQ(p.dropped(), 0);
  for (std::uint8_t b : p.y().download()) ASSERT_EQ(b, kPoisonByte);
}

TEST_F(MoeMlpBehavior, RejectedCallsLeaveTheOutputUntouched) {
  MoeProblem p({20, 8, 2, 512, 256, GatedActivation::kSwiGLU, false, 0}, case_seed("moe_rejected"));
  p.prepare();
  MoeMlpArgs too_many = p.args();
  too_many.topk = 9;
  MoeMlpArgs short_workspace = p.args();
  short_workspace.workspace_bytes -= 256;
  MoeMlpArgs no_ids = p.args();
  no_ids.topk_ids = nullptr;
  expect_rejected(moe_mlp(too_many, nullptr), StatusCode::kInvalidArgument, "k (9) must be in");
  expect_rejected(moe_mlp(short_workspace, nullptr), StatusCode::kInvalidArgument, "workspace");
  expect_rejected(moe_mlp(no_ids, nullptr), StatusCode::kInvalidArgument, "topk_ids");
  EPIFUSE_CHECK_CUDA(cudaDeviceSynchronize());
  for (std::uint8_t b : p.y().download()) ASSERT_EQ(b, kPoisonByte);
}

}  // namespace
}  // namespace epifuse::testing

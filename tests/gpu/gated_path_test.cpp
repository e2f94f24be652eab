// Where a gated call can run both its fused kernel and the delegated cuBLASLt + act·mul path, its
// first eager launch times both and the shape keeps the faster (api/gated_path.hpp): the workspace
// query makes room for both where the product is no larger than x or (17 to K/16 tokens, a weight
// larger than L2) an eighth of the weight, every launch passes the fp64 check, later launches and a
// CUDA graph captured after them repeat the kept path bitwise, a first launch under capture takes
// the rule's path without timing, and with tuning off the rule decides and the query asks only for
// its path. At 321-1023 tokens the same holds for the tilings timed beside the rules' one.
#include <algorithm>
#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include <cuda_runtime_api.h>

#include "epifuse/tuning.hpp"
#include "tests/gpu/gpu_test.hpp"
#include "testing/gated_problem.hpp"

namespace epifuse::testing {
namespace {

class GatedPaths : public ::testing::Test {
 protected:
  void SetUp() override { EPIFUSE_REQUIRE_HOPPER(); }
  void TearDown() override { set_delegated_tuning(true); }
};

std::size_t product_bytes(const GatedCase& c) { return static_cast<std::size_t>(c.M * 2 * c.N) * sizeof(float); }

bool runs_delegated(const GatedProblem& p) {
  std::optional<KernelChoice> choice;
  bool delegated = false;
  EXPECT_TRUE(selected_kernel(p.args(), nullptr, &choice, &delegated).ok());
  return delegated;
}

std::vector<std::uint8_t> launch_and_download(GatedProblem& p, cudaStream_t stream) {
  p.poison_output();
  const Status s = gated_mlp(p.args(), stream);
  EXPECT_TRUE(s.ok()) << s.to_string();
  EPIFUSE_CHECK_CUDA(cudaStreamSynchronize(stream));
  return p.out().download();
}

// The call captured in a graph on `stream` and replayed once; the output downloaded.
std::vector<std::uint8_t> replay_and_download(GatedProblem& p, cudaStream_t stream) {
  cudaGraph_t graph;
  EPIFUSE_CHECK_CUDA(cudaStreamBeginCapture(stream, cudaStreamCaptureModeGlobal));
  const Status s = gated_mlp(p.args(), stream);
  EPIFUSE_CHECK_CUDA(cudaStreamEndCapture(stream, &graph));
  EXPECT_TRUE(s.ok()) << s.to_string();
  cudaGraphExec_t exec;
  EPIFUSE_CHECK_CUDA(cudaGraphInstantiate(&exec, graph, 0));
  p.poison_output();
  EPIFUSE_CHECK_CUDA(cudaGraphLaunch(exec, stream));
  EPIFUSE_CHECK_CUDA(cudaStreamSynchronize(stream));
  EPIFUSE_CHECK_CUDA(cudaGraphExecDestroy(exec));
  EPIFUSE_CHECK_CUDA(cudaGraphDestroy(graph));
  return p.out().download();
}

// Random-suite draws (bench/results/grid/random-ebaf4aa/) the rule delegates: 473x448x4800 (its
// fused kernel ran 0.55x cuBLASLt + act·mul) and 238x3776x2880 (the fused kernel 1.00x, the
// delegated path 0.90x); 600x1024x8192, whose product takes no more bytes than x (K >= 4N), and
// 24x7168x3072, an MLP's small batch, whose product takes less than an eighth of its 88 MB weight
// (24 tokens <= K/16), so that the query makes room for them whatever the rule says. Each shape
// occurs in no other test, so its first launch here times both paths.
TEST_F(GatedPaths, FirstLaunchTimesBothAndLaterLaunchesRepeatTheKeptPath) {
  ASSERT_TRUE(delegated_tuning()) << "tuning is on by default";
  cudaStream_t stream;
  EPIFUSE_CHECK_CUDA(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
  const GatedCase cases[] = {{473, 448, 4800, DType::kBF16, GatedActivation::kSwiGLU, true},
                             {238, 3776, 2880, DType::kBF16, GatedActivation::kGeGLUTanh, false},
                             {600, 1024, 8192, DType::kFP16, GatedActivation::kReGLU, true},
                             {24, 7168, 3072, DType::kBF16, GatedActivation::kSwiGLU, false}};
  for (const GatedCase& c : cases) {
    GatedProblem p(c, case_seed(c.name()));
    EXPECT_GE(p.args().workspace_bytes, product_bytes(c)) << c.name() << ": no room for the delegated path";
    const GatedReport first = run_and_check_gated(p, stream);
    EXPECT_TRUE(first.passed) << c.name() << ", first launch: " << first.text;
    const bool delegated = runs_delegated(p);
    const GatedReport second = run_and_check_gated(p, stream);
    EXPECT_TRUE(second.passed) << c.name() << ", second launch: " << second.text;
    EXPECT_EQ(runs_delegated(p), delegated) << c.name() << ": the kept path changed";
    const std::vector<std::uint8_t> eager = launch_and_download(p, stream);
    EXPECT_TRUE(eager == launch_and_download(p, stream)) << c.name() << ": later launches differ";
    EXPECT_TRUE(eager == replay_and_download(p, stream)) << c.name() << ": the graph ran another path";
  }
  EPIFUSE_CHECK_CUDA(cudaStreamDestroy(stream));
}

// A shape's first launch inside a capture: the rule's path, untimed (timing would synchronize a
// capturing stream); the same bits as that path run eagerly with tuning off.
TEST_F(GatedPaths, FirstLaunchUnderCaptureTakesTheRulesPath) {
  cudaStream_t stream;
  EPIFUSE_CHECK_CUDA(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
  const GatedCase c{601, 1024, 8192, DType::kBF16, GatedActivation::kGeGLUErf, false};
  GatedProblem p(c, case_seed(c.name()));
  EXPECT_GE(p.args().workspace_bytes, product_bytes(c)) << "room for both paths";
  const bool rule_delegates = runs_delegated(p);
  const std::vector<std::uint8_t> captured = replay_and_download(p, stream);
  const GatedReport r = check_gated_output(p, p.out().data(), p.args().ldo);
  EXPECT_TRUE(r.passed) << r.text;
  EXPECT_EQ(runs_delegated(p), rule_delegates) << "nothing timed under capture";
  set_delegated_tuning(false);
  EXPECT_TRUE(captured == launch_and_download(p, stream)) << "the rule's path, eager, differs from the graph";
  EPIFUSE_CHECK_CUDA(cudaStreamDestroy(stream));
}

// At 321-352 tokens the first launch also times two 176-token tiles beside the rules' way, and at
// 353-1023 tokens seven tilings (gated_timed_alternatives): every launch passes the fp64 check,
// the kept way is the rules' fused pick, one of the timed tilings or the delegated path (timed
// wherever the workspace holds the product; 330x1024x2048 the rule delegates), and later launches
// and a CUDA graph captured after them repeat its bits. A first launch under capture runs the
// rules' fused pick (331x8192x1024) untimed. Shapes no other test runs; the heuristics unit tests
// TimesTwo176TokenTilesAt321To352Tokens and TimesSevenTilingsAt353To1023Tokens check that each
// has these alternatives.
TEST_F(GatedPaths, FirstLaunchTimesOtherTilingsIn321To1023Tokens) {
  cudaStream_t stream;
  EPIFUSE_CHECK_CUDA(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
  const std::vector<std::string> tiles176{"sm90_gated_mlp_bf16_bf16_swap_coop_128x176x64_c2x1"};
  const std::vector<std::string> seven{tiles176[0],
                                       "sm90_gated_mlp_bf16_bf16_swap_pingpong_128x112x64_c2x1",
                                       "sm90_gated_mlp_bf16_bf16_swap_coop_128x224x64_c2x1",
                                       "sm90_gated_mlp_bf16_bf16_swap_pingpong_128x96x64_c1x2",
                                       "sm90_gated_mlp_bf16_bf16_swap_pingpong_128x128x64_c1x2",
                                       "sm90_gated_mlp_bf16_bf16_swap_pingpong_128x160x64_c2x1",
                                       "sm90_gated_mlp_bf16_bf16_pingpong_128x128x64_c1x2"};
  const std::pair<GatedCase, std::vector<std::string>> cases[] = {
      {{330, 1024, 2048, DType::kBF16, GatedActivation::kSwiGLU, true}, tiles176},
      {{344, 768, 1536, DType::kBF16, GatedActivation::kGeGLUTanh, false}, tiles176},
      {{330, 8192, 1024, DType::kBF16, GatedActivation::kGeGLUErf, true}, tiles176},
      {{645, 8192, 1024, DType::kBF16, GatedActivation::kSwiGLU, false}, seven}};
  for (const auto& [c, timed] : cases) {
    GatedProblem p(c, case_seed(c.name()));
    std::optional<KernelChoice> rules;
    ASSERT_TRUE(selected_kernel(p.args(), nullptr, &rules).ok());
    std::vector<std::string> fused = timed;
    fused.push_back(to_string(*rules));
    const GatedReport first = run_and_check_gated(p, stream);
    EXPECT_TRUE(first.passed) << c.name() << ", first launch: " << first.text;
    std::optional<KernelChoice> kept;
    bool delegated = false;
    ASSERT_TRUE(selected_kernel(p.args(), nullptr, &kept, &delegated).ok());
    EXPECT_TRUE(delegated || std::find(fused.begin(), fused.end(), to_string(*kept)) != fused.end())
        << c.name() << ": " << to_string(*kept);
    const GatedReport second = run_and_check_gated(p, stream);
    EXPECT_TRUE(second.passed) << c.name() << ", second launch: " << second.text;
    const std::vector<std::uint8_t> eager = launch_and_download(p, stream);
    EXPECT_TRUE(eager == launch_and_download(p, stream)) << c.name() << ": later launches differ";
    EXPECT_TRUE(eager == replay_and_download(p, stream)) << c.name() << ": the graph's output differs";
  }
  const GatedCase captured_first{331, 8192, 1024, DType::kBF16, GatedActivation::kSwiGLU, false};
  GatedProblem q(captured_first, case_seed(captured_first.name()));
  std::optional<KernelChoice> rules;
  bool delegated = true;
  ASSERT_TRUE(selected_kernel(q.args(), nullptr, &rules, &delegated).ok());
  EXPECT_FALSE(delegated) << "the rules run a fused kernel";
  const std::vector<std::uint8_t> captured = replay_and_download(q, stream);
  const GatedReport r = check_gated_output(q, q.out().data(), q.args().ldo);
  EXPECT_TRUE(r.passed) << r.text;
  std::optional<KernelChoice> after;
  ASSERT_TRUE(selected_kernel(q.args(), nullptr, &after).ok());
  EXPECT_EQ(to_string(*after), to_string(*rules)) << "nothing timed under capture";
  GatedMlpArgs forced = q.args();
  forced.kernel = rules;
  q.poison_output();
  ASSERT_TRUE(gated_mlp(forced, stream).ok());
  EPIFUSE_CHECK_CUDA(cudaStreamSynchronize(stream));
  EXPECT_TRUE(captured == q.out().download()) << "the graph's output differs from the rules' pick run eagerly";
  EPIFUSE_CHECK_CUDA(cudaStreamDestroy(stream));
}

// An MLP's gate/up (N > K) past K/16 tokens, or at decode: the query asks for no room for the
// product, tuning on or off. Tuning off: the rule's path and only its workspace, whatever an
// earlier launch kept.
TEST_F(GatedPaths, OffTakesTheRulesPath) {
  const GatedCase fused{266, 10624, 896, DType::kBF16, GatedActivation::kSwiGLU, false};
  EXPECT_LT(GatedProblem(fused, 1).args().workspace_bytes, product_bytes(fused)) << "tuning on";
  const GatedCase decode{5, 14336, 4096, DType::kBF16, GatedActivation::kSwiGLU, false};
  EXPECT_LT(GatedProblem(decode, 1).args().workspace_bytes, product_bytes(decode)) << "decode, tuning on";
  set_delegated_tuning(false);
  GatedProblem p(fused, case_seed(fused.name()));
  EXPECT_LT(p.args().workspace_bytes, product_bytes(fused));
  EXPECT_FALSE(runs_delegated(p));
  const GatedCase delegated{473, 448, 4800, DType::kBF16, GatedActivation::kSwiGLU, true};
  GatedProblem q(delegated, case_seed(delegated.name()));
  EXPECT_GE(q.args().workspace_bytes, product_bytes(delegated));
  EXPECT_TRUE(runs_delegated(q));
  for (GatedProblem* problem : {&p, &q}) {
    const GatedReport r = run_and_check_gated(*problem);
    EXPECT_TRUE(r.passed) << problem->spec().name() << ": " << r.text;
  }
}

}  // namespace
}  // namespace epifuse::testing

// Shared pieces of the GPU suite: skip without a Hopper GPU, run a case, log its summary.
#pragma once

#include <string>

#include <cuda_runtime_api.h>
#include <gtest/gtest.h>

#include "testing/gated_problem.hpp"
#include "testing/gemm_check.hpp"
#include "testing/gemm_problem.hpp"

namespace epifuse::testing {

// Skips the calling test, with the reason, when no sm_90 device is present.
#define EPIFUSE_REQUIRE_HOPPER()                        \
  do {                                                  \
    std::string why_not;                                \
    if (!::epifuse::testing::hopper_available(&why_not)) \
      GTEST_SKIP() << "needs a Hopper GPU: " << why_not; \
  } while (0)

// Seed of one case: the run's seed mixed with the case name, so each case draws fresh inputs
// and any single case replays alone with EPIFUSE_SEED.
std::uint64_t case_seed(const std::string& case_name);

// Runs and checks `c` on `stream`; prints a one-line summary (kept in the device log) and the
// full report on failure.
void expect_case_passes(const GemmCase& c, cudaStream_t stream = nullptr);
void expect_gated_passes(const GatedCase& c, cudaStream_t stream = nullptr);

// gtest parameter name for a case: its name with characters gtest rejects replaced.
template <class Case>
std::string param_name(const ::testing::TestParamInfo<Case>& info) {
  std::string name = info.param.name();
  for (char& ch : name) {
    if (!std::isalnum(static_cast<unsigned char>(ch))) ch = '_';
  }
  return name;
}

// Captures gemm(p.args()) on a fresh stream (Global mode), then replays the graph `replays` times,
// each on re-poisoned outputs and workspace and checked against the fp64 reference.
void expect_gemm_graph_replays_pass(GemmProblem& p, int replays = 2);
// The same for gated_mlp(p.args()), each replay on a re-poisoned output.
void expect_gated_graph_replays_pass(GatedProblem& p, int replays = 2);

// Expects `s` to be a rejection of `code` whose message contains `message`.
void expect_rejected(const Status& s, StatusCode code, const std::string& message);

}  // namespace epifuse::testing

// Shared pieces of the GPU suite: skip without a Hopper GPU, run a case, log its summary.
#pragma once

#include <string>

#include <gtest/gtest.h>

#include "tests/support/gemm_check.hpp"
#include "tests/support/gemm_problem.hpp"

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
std::uint64_t case_seed(const GemmCase& c);

// Runs and checks `c`; prints a one-line summary (kept in the device log) and the full report on failure.
void expect_case_passes(const GemmCase& c);

// gtest parameter name for a case: its name with characters gtest rejects replaced.
std::string param_name(const ::testing::TestParamInfo<GemmCase>& info);

}  // namespace epifuse::testing

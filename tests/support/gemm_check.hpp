// Checks a GEMM's output against the fp64 reference (reference/gemm.hpp) under the rule in
// tolerances.hpp: every element written, padding and guard bands untouched, errors within the
// table, reductions within theirs.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "tests/support/error_stats.hpp"
#include "tests/support/gemm_problem.hpp"

namespace epifuse::testing {

struct CheckReport {
  bool passed = false;
  std::string text;  // what was checked and what failed, one line per finding
  std::string kernel;
  ErrorStats fused;    // ours vs fp64
  ErrorStats unfused;  // the eager unfused path vs fp64
  std::int64_t rows_checked = 0;
};

// Rows the reference computes: all of them when M·N·K is small enough, else a seeded sample
// with the first and last rows and rows around 64/128-row tile edges.
std::vector<std::int64_t> reference_rows(std::int64_t M, std::int64_t N, std::int64_t K, std::uint64_t seed);

// The expensive part of a check, shareable between checks of one problem: fp64 accumulators
// of the reference rows (its inputs never change after construction).
struct ReferenceAccumulators {
  std::vector<std::int64_t> rows;
  std::vector<double> acc;  // [rows, N]
};
ReferenceAccumulators reference_accumulators(const GemmProblem& problem);

// Poisons the outputs, runs epifuse::gemm on `problem` and checks everything.
CheckReport run_and_check(GemmProblem& problem, const ReferenceAccumulators* reference = nullptr);

// Checks an output another implementation wrote for `problem` (e.g. a cuBLASLt baseline) into a
// buffer poisoned beforehand: every element finite, values on the reference rows, `spec` giving
// the math it computed.
CheckReport check_external_output(const GemmProblem& problem, const ReferenceAccumulators& reference, const void* d,
                                  std::int64_t ldd, DType dtype, const EpilogueSpec& spec);

}  // namespace epifuse::testing

// Checks a GEMM's output against the fp64 reference (reference/gemm.hpp) under the rules of
// tolerances.hpp: every element written, padding and guard bands untouched, inputs unchanged,
// values within the one-rounding rule (epifuse) or the baseline rule, reductions within theirs.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "reference/gemm.hpp"
#include "testing/accuracy.hpp"
#include "testing/gemm_problem.hpp"

namespace epifuse::testing {

struct CheckReport {
  bool passed = false;
  std::string text;    // what was checked and what failed, one line per finding
  std::string kernel;  // what ran: the kernel and its knobs
  Accuracy ours;       // the output against fp64
  double unfused_rel_l2 = 0;  // the eager unfused path against fp64, for comparison
  std::int64_t rows_checked = 0;
};

// Rows the reference computes: all of them when M·N·K is small enough, else a seeded sample
// with the first and last rows and rows around 64/128-row tile edges.
std::vector<std::int64_t> reference_rows(std::int64_t M, std::int64_t N, std::int64_t K, std::uint64_t seed);
// Columns likewise: all of them unless N·K is large (then both ends, tile edges, a sample).
std::vector<std::int64_t> reference_cols(std::int64_t N, std::int64_t K, std::uint64_t seed);

// Host fp32 copies of rows `rows` of a [*, ld] device matrix of `dtype`, `cols` wide.
std::vector<float> download_rows(const void* data, const std::vector<std::int64_t>& rows, std::int64_t cols,
                                 std::int64_t ld, DType dtype);

// The expensive part of a check, shareable between checks of one problem: fp64 accumulators
// of the reference cells (its inputs never change after construction).
struct ReferenceAccumulators {
  reference::Cells cells;
  std::vector<double> acc;  // [rows, cols]
};
ReferenceAccumulators reference_accumulators(const GemmProblem& problem);

// Poisons the outputs, runs epifuse::gemm on `problem` (on `stream`) and checks everything.
CheckReport run_and_check(GemmProblem& problem, const ReferenceAccumulators* reference = nullptr,
                          cudaStream_t stream = nullptr);

// Checks an output another implementation wrote for `problem` (a cuBLASLt baseline, a custom
// epilogue) into a buffer poisoned beforehand: every element finite, values on the reference
// rows, `spec` giving the math it computed.
CheckReport check_external_output(const GemmProblem& problem, const ReferenceAccumulators& reference, const void* d,
                                  std::int64_t ldd, DType dtype, const EpilogueSpec& spec, Judge judge);

}  // namespace epifuse::testing

// A fused gated-MLP test or bench case: description, random device operands (gate and up
// weights drawn separately, then packed on the device as a user would), and the check of an
// output against the fp64 reference under the rule in tolerances.hpp.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "epifuse/gated.hpp"
#include "tests/support/device_buffer.hpp"
#include "tests/support/error_stats.hpp"

namespace epifuse::testing {

struct GatedCase {
  std::int64_t M = 0, N = 0, K = 0;
  DType dtype = DType::kBF16;
  GatedActivation activation = GatedActivation::kSwiGLU;
  bool bias = false;
  float limit = 0.0f;  // > 0: clamped (gate ≤ limit, |up| ≤ limit)
  float scale = 1.0f;
  std::int64_t ldx_pad = 0;  // ldx = K + ldx_pad
  std::int64_t ldo_pad = 0;  // ldo = N + ldo_pad
  std::string kernel;        // force a kernel by name; empty = heuristic
  std::string name() const;
};

class GatedProblem {
 public:
  GatedProblem(const GatedCase& c, std::uint64_t seed);

  const GatedCase& spec() const { return case_; }
  std::uint64_t seed() const { return seed_; }
  const GatedArgs& args() const { return args_; }
  void poison_output() { out_.poison(); }

  const DeviceBuffer& x() const { return x_; }
  const DeviceBuffer& gate() const { return gate_; }  // [N, K] unpacked
  const DeviceBuffer& up() const { return up_; }
  const DeviceBuffer& out() const { return out_; }
  const std::vector<float>& gate_bias() const { return host_gate_bias_; }  // empty without bias
  const std::vector<float>& up_bias() const { return host_up_bias_; }

 private:
  GatedCase case_;
  std::uint64_t seed_;
  GatedArgs args_;
  DeviceBuffer x_, gate_, up_, gate_bias_, up_bias_, packed_, packed_bias_, out_;
  std::vector<float> host_gate_bias_, host_up_bias_;
};

struct GatedReport {
  bool passed = false;
  std::string text;
  std::string kernel;
  ErrorStats fused, unfused;
  std::int64_t rows_checked = 0, cols_checked = 0;
};

// Poisons the output, runs epifuse::gated_mlp and checks the result.
GatedReport run_and_check_gated(GatedProblem& problem);

// How an output is judged: epifuse by the rule in tolerances.hpp; an unfused baseline, which
// rounds its [M, 2N] intermediate (the eager path also its activation) to the dtype, by the
// ceilings with twice the elementwise bound (two or three roundings instead of one).
enum class GatedJudge { kFused, kBaseline };

// Checks an [M, N] output (ld `ldo`, the problem's dtype) written into a buffer poisoned
// beforehand. Large problems are checked on a seeded sample of rows and columns.
GatedReport check_gated_output(const GatedProblem& problem, const void* out, std::int64_t ldo,
                               GatedJudge judge = GatedJudge::kFused);

}  // namespace epifuse::testing

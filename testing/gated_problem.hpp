// A fused gated-MLP test or bench case: description, random device operands (gate and up
// weights drawn separately, then packed on the device as a user would), and the check of an
// output against the fp64 reference under the rule in tolerances.hpp.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "epifuse/gated_mlp.hpp"
#include "testing/accuracy.hpp"
#include "testing/device_buffer.hpp"

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
  std::string kernel;        // force a kernel by name(key); empty = dispatch chooses
  int splits = 1;            // the forced kernel's KernelChoice::splits
  StreamKMode stream_k = StreamKMode::kHeuristic;  // the forced kernel's KernelChoice::stream_k
  // Needs bias: the gate bias holds +inf, −inf, NaN in its first three columns and the up bias
  // the same in the next three; the output is poisoned with a finite pattern instead of NaN.
  bool special_values = false;
  std::string name() const;
};

class GatedProblem {
 public:
  GatedProblem(const GatedCase& c, std::uint64_t seed);

  const GatedCase& spec() const { return case_; }
  std::uint64_t seed() const { return seed_; }
  // Arguments for epifuse::gated_mlp over these operands, with a workspace of the size its query asks.
  const GatedMlpArgs& args() const { return args_; }
  // Poisons out and the workspace.
  void poison_output();
  // Calls without a workspace from now on (x read in place).
  void drop_workspace();
  std::uint8_t poison_byte() const { return case_.special_values ? kFinitePoisonByte : kPoisonByte; }
  // A fingerprint of every input (x, the packed weight and bias): unchanged by a call.
  std::uint64_t inputs_fingerprint() const;

  const DeviceBuffer& x() const { return x_; }
  const DeviceBuffer& gate() const { return gate_; }  // [N, K] unpacked
  const DeviceBuffer& up() const { return up_; }
  const DeviceBuffer& out() const { return out_; }
  const DeviceBuffer& workspace() const { return workspace_; }
  const std::vector<float>& gate_bias() const { return host_gate_bias_; }  // empty without bias
  const std::vector<float>& up_bias() const { return host_up_bias_; }

 private:
  GatedCase case_;
  std::uint64_t seed_;
  GatedMlpArgs args_;
  DeviceBuffer x_, gate_, up_, gate_bias_, up_bias_, packed_, packed_bias_, out_, workspace_;
  std::vector<float> host_gate_bias_, host_up_bias_;
};

struct GatedReport {
  bool passed = false;
  std::string text;
  std::string kernel;  // what ran: the kernel and its knobs
  Accuracy ours;       // the output against fp64
  double unfused_rel_l2 = 0;  // the unfused bf16/fp16 path against fp64, for comparison
  std::int64_t rows_checked = 0, cols_checked = 0;
};

// Poisons the output, runs epifuse::gated_mlp (on `stream`) and checks the result, the guard
// band and that the inputs are unchanged.
GatedReport run_and_check_gated(GatedProblem& problem, cudaStream_t stream = nullptr);

// Checks an [M, N] output (ld `ldo`, the problem's dtype) written into a buffer poisoned
// beforehand: epifuse by the one-rounding rule; a baseline, which rounds its [M, 2N]
// intermediate (the eager path also its activation), by the baseline rule with twice the
// elementwise bound. Large problems are checked on a seeded sample of rows and columns.
GatedReport check_gated_output(const GatedProblem& problem, const void* out, std::int64_t ldo,
                               Judge judge = Judge::kFused);

}  // namespace epifuse::testing

// A GEMM test or bench case: its description (shape, dtypes, strides, epilogue features) and
// the device operands it needs, filled with fresh random values from a seed.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "epifuse/gemm.hpp"
#include "testing/device_buffer.hpp"

namespace epifuse::testing {

enum ReductionFlags : unsigned {
  kRowSum = 1u << 0,
  kRowAmax = 1u << 1,
  kColSum = 1u << 2,
  kColAmax = 1u << 3,
  kAmax = 1u << 4,
  kAllReductions = (1u << 5) - 1,
};

enum class Residual { kNone, kAfterActivation, kBeforeActivation, kInPlace };

// Which epilogue operands a case uses; values come from the seed (see make_problem).
struct EpilogueSpec {
  bool alpha = false;  // alpha = 0.625 instead of 1
  bool row_scale = false;
  bool col_scale = false;
  bool col_bias = false;
  bool row_bias = false;
  Activation activation = Activation::kIdentity;
  Residual residual = Residual::kNone;  // beta = -0.5
  unsigned reductions = 0;              // ReductionFlags
  DType col_bias_dtype = DType::kFP32;  // or D's 16-bit type: the bias as a bf16 model holds it
  std::string name() const;             // "col_bias+gelu_tanh+residual_after"; "none" when empty
};

struct GemmCase {
  std::int64_t M = 0, N = 0, K = 0;
  DType input = DType::kBF16;   // A and B
  DType output = DType::kBF16;  // D and C
  std::int64_t lda_pad = 0;  // lda = K + lda_pad (elements)
  std::int64_t ldd_pad = 0;  // ldd = N + ldd_pad; C uses the same leading dimension
  EpilogueSpec epilogue;
  std::string kernel;  // force a kernel by name(key); empty = dispatch chooses
  StreamKMode stream_k = StreamKMode::kHeuristic;  // the forced kernel's KernelChoice::stream_k
  int splits = 1;                                  // the forced kernel's KernelChoice::splits
  // col_bias holds +inf, −inf, NaN in columns 0-2 and C (when present) the same at (0,3), (1,4),
  // (2,5); the outputs are poisoned with a finite pattern instead of NaN (kFinitePoisonByte).
  bool special_values = false;
  std::string name() const;
};

// Device operands of one case. Inputs are random; outputs, reductions and the workspace are
// poisoned by poison_outputs().
class GemmProblem {
 public:
  GemmProblem(const GemmCase& c, std::uint64_t seed);

  const GemmCase& spec() const { return case_; }
  std::uint64_t seed() const { return seed_; }
  // Arguments for epifuse::gemm over these operands, workspace included.
  const GemmArgs& args() const { return args_; }
  std::int64_t lda() const { return args_.lda; }
  std::int64_t ldd() const { return args_.ldd; }

  // Re-poisons D (and C's copy for in-place residuals: D is refilled with C), reductions, workspace.
  void poison_outputs();
  std::uint8_t poison_byte() const;
  // A fingerprint of every input (A, B, epilogue vectors, C unless it is D): unchanged by a call.
  std::uint64_t inputs_fingerprint() const;

  const DeviceBuffer& a() const { return a_; }
  const DeviceBuffer& b() const { return b_; }
  const DeviceBuffer& d() const { return d_; }
  const DeviceBuffer* reduction(unsigned flag) const;
  const DeviceBuffer& workspace() const { return workspace_; }
  // Calls without a workspace from now on (args().workspace null, 0 bytes).
  void drop_workspace();
  // Every buffer a call may write (D, reduction outputs, workspace), each with its guard band.
  std::vector<const DeviceBuffer*> outputs() const;
  // Host copies of the fp32 epilogue inputs (empty when absent) and of C.
  const std::vector<float>& row_scale() const { return host_row_scale_; }
  const std::vector<float>& col_scale() const { return host_col_scale_; }
  const std::vector<float>& col_bias() const { return host_col_bias_; }
  const std::vector<float>& row_bias() const { return host_row_bias_; }
  const std::vector<std::uint8_t>& residual_bytes() const { return host_residual_; }

 private:
  GemmCase case_;
  std::uint64_t seed_;
  GemmArgs args_;
  DeviceBuffer a_, b_, d_, c_;
  DeviceBuffer row_scale_, col_scale_, col_bias_, row_bias_;
  DeviceBuffer row_sum_, row_amax_, col_sum_, col_amax_, amax_;
  DeviceBuffer workspace_;
  std::vector<float> host_row_scale_, host_col_scale_, host_col_bias_, host_row_bias_;
  std::vector<std::uint8_t> host_residual_;
};

}  // namespace epifuse::testing

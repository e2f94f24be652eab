#include "testing/gated_problem.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>
#include <random>
#include <set>
#include <stdexcept>

#include <cuda_runtime_api.h>

#include "epifuse/tuning.hpp"
#include "reference/activation.hpp"
#include "reference/gated.hpp"
#include "reference/numeric.hpp"
#include "testing/gemm_check.hpp"
#include "testing/random.hpp"

namespace epifuse::testing {
namespace {

std::string fmt(const char* format, double a, double b = 0, double c = 0) {
  char buf[256];
  std::snprintf(buf, sizeof(buf), format, a, b, c);
  return buf;
}

double finite_rms(const std::vector<double>& v) {
  double sum_sq = 0;
  std::size_t n = 0;
  for (double x : v) {
    if (!std::isfinite(x)) continue;
    sum_sq += x * x;
    ++n;
  }
  return n ? std::sqrt(sum_sq / static_cast<double>(n)) : 0.0;
}

// How far fp32 errors of the gate and up accumulators' own size (|g| + rms(g), as the GEMM rule
// scales them) move out = s·act(g)·u: |s|·(max|act'|·|u|·(|g| + rms g) + |act(g)|·(|u| + rms u)).
// max|act'| over the three activations is GELU's 1.129. A clamped operand is taken at its clamp;
// a non-finite term (an infinite bias) adds nothing.
std::vector<double> gated_error_scale(const reference::GatedOperands& g, const reference::GateUpValues& v) {
  constexpr double kMaxSlope = 1.13;
  const double rms_gate = finite_rms(v.gate), rms_up = finite_rms(v.up);
  const bool clamped = g.limit > 0.0 && std::isfinite(g.limit);
  std::vector<double> scale(v.gate.size());
  for (std::size_t i = 0; i < scale.size(); ++i) {
    const double gate = clamped ? std::min(v.gate[i], g.limit) : v.gate[i];
    const double up = clamped ? std::clamp(v.up[i], -g.limit, g.limit) : v.up[i];
    const double act = reference::activate({gate_activation(g.activation)}, gate);
    const double from_gate = kMaxSlope * std::fabs(up) * (std::fabs(gate) + rms_gate);
    const double from_up = std::fabs(act) * (std::fabs(up) + rms_up);
    scale[i] = std::fabs(g.scale) * ((std::isfinite(from_gate) ? from_gate : 0.0) +
                                     (std::isfinite(from_up) ? from_up : 0.0));
  }
  return scale;
}

}  // namespace

std::string GatedCase::name() const {
  std::string s = std::to_string(M) + "x" + std::to_string(N) + "x" + std::to_string(K) + "_" + to_string(dtype) +
                  "_" + to_string(activation);
  if (bias) s += "_bias";
  if (limit > 0.0f) s += "_limit";
  if (scale != 1.0f) s += "_scale";
  if (ldx_pad) s += "_ldx+" + std::to_string(ldx_pad);
  if (ldo_pad) s += "_ldo+" + std::to_string(ldo_pad);
  if (!kernel.empty()) s += "_" + kernel;
  if (splits != 1) s += "_splits" + std::to_string(splits);
  if (stream_k != StreamKMode::kHeuristic) s += std::string("_") + to_string(stream_k);
  if (special_values) s += "_specials";
  return s;
}

GatedProblem::GatedProblem(const GatedCase& c, std::uint64_t seed) : case_(c), seed_(seed) {
  const std::size_t elem = dtype_bytes(c.dtype);
  const std::int64_t ldx = c.K + c.ldx_pad, ldo = c.N + c.ldo_pad;
  // gate and up each have unit variance: x ~ U(-1, 1), W ~ U(-3/√K, 3/√K).
  const float w_scale = 3.0f / std::sqrt(static_cast<float>(c.K));
  x_ = DeviceBuffer(static_cast<std::size_t>(std::max<std::int64_t>(c.M, 1) * ldx) * elem);
  gate_ = DeviceBuffer(static_cast<std::size_t>(c.N * c.K) * elem);
  up_ = DeviceBuffer(static_cast<std::size_t>(c.N * c.K) * elem);
  out_ = DeviceBuffer(static_cast<std::size_t>(std::max<std::int64_t>(c.M, 1) * ldo) * elem);
  fill_uniform(x_.data(), c.dtype, c.M, c.K, ldx, derive_seed(seed, 1), -1.0f, 1.0f);
  fill_uniform(gate_.data(), c.dtype, c.N, c.K, c.K, derive_seed(seed, 2), -w_scale, w_scale);
  fill_uniform(up_.data(), c.dtype, c.N, c.K, c.K, derive_seed(seed, 3), -w_scale, w_scale);

  GateUpSource src;
  src.gate = gate_.data();
  src.up = up_.data();
  src.ld = c.K;
  src.N = c.N;
  src.K = c.K;
  src.dtype = c.dtype;
  if (c.bias) {
    auto vector = [&](DeviceBuffer* buf, std::vector<float>* host, std::uint64_t stream) {
      *buf = DeviceBuffer(static_cast<std::size_t>(c.N) * sizeof(float));
      fill_uniform(buf->data(), DType::kFP32, 1, c.N, c.N, derive_seed(seed, stream), -0.5f, 0.5f);
      host->resize(c.N);
      EPIFUSE_CHECK_CUDA(cudaMemcpy(host->data(), buf->data(), buf->bytes(), cudaMemcpyDeviceToHost));
    };
    vector(&gate_bias_, &host_gate_bias_, 4);
    vector(&up_bias_, &host_up_bias_, 5);
    if (c.special_values) {
      const float specials[3] = {std::numeric_limits<float>::infinity(), -std::numeric_limits<float>::infinity(),
                                 std::numeric_limits<float>::quiet_NaN()};
      for (int i = 0; i < 3; ++i) {
        host_gate_bias_[i] = specials[i];
        host_up_bias_[3 + i] = specials[i];
      }
      gate_bias_.upload(host_gate_bias_.data(), gate_bias_.bytes());
      up_bias_.upload(host_up_bias_.data(), up_bias_.bytes());
    }
    src.gate_bias = gate_bias_.as<float>();
    src.up_bias = up_bias_.as<float>();
    packed_bias_ = DeviceBuffer(2 * static_cast<std::size_t>(c.N) * sizeof(float));
  }
  packed_ = DeviceBuffer(2 * static_cast<std::size_t>(c.N * c.K) * elem);
  if (Status s = pack_gate_up(src, packed_.data(), packed_bias_.as<float>(), &args_.w, nullptr); !s.ok()) {
    throw std::runtime_error("pack_gate_up: " + s.to_string());
  }
  EPIFUSE_CHECK_CUDA(cudaDeviceSynchronize());

  args_.M = c.M;
  args_.N = c.N;
  args_.x_dtype = c.dtype;
  args_.x = x_.data();
  args_.ldx = ldx;
  args_.out_dtype = c.dtype;
  args_.out = out_.data();
  args_.ldo = ldo;
  args_.activation = c.activation;
  if (c.limit > 0.0f) args_.limit = c.limit;
  args_.scale = c.scale;
  if (!c.kernel.empty()) {
    const std::optional<KernelKey> key = find_kernel(c.kernel);
    if (!key) throw std::runtime_error("no compiled kernel named " + c.kernel);
    args_.kernel = KernelChoice{*key};
    args_.kernel->splits = c.splits;
    args_.kernel->stream_k = c.stream_k;
  }
  std::size_t workspace_bytes = 0;
  if (Status s = gated_mlp_workspace_size(args_, nullptr, &workspace_bytes); !s.ok()) {
    throw std::runtime_error("gated_mlp_workspace_size: " + s.to_string());
  }
  if (workspace_bytes > 0) {
    workspace_ = DeviceBuffer(workspace_bytes);
    args_.workspace = workspace_.data();
    args_.workspace_bytes = workspace_bytes;
  }
}

void GatedProblem::poison_output() {
  out_.poison(poison_byte());
  if (workspace_.data()) workspace_.poison();
}

void GatedProblem::drop_workspace() {
  workspace_ = DeviceBuffer();
  args_.workspace = nullptr;
  args_.workspace_bytes = 0;
}

std::uint64_t GatedProblem::inputs_fingerprint() const {
  std::uint64_t h = derive_seed(x_.fingerprint(), 1) ^ derive_seed(packed_.fingerprint(), 2);
  if (packed_bias_.data()) h ^= derive_seed(packed_bias_.fingerprint(), 3);
  return h;
}

GatedReport check_gated_output(const GatedProblem& p, const void* out, std::int64_t ldo, Judge judge) {
  const GatedCase& c = p.spec();
  GatedReport report;
  report.passed = true;
  const std::vector<std::int64_t> rows = reference_rows(c.M, c.N, c.K, p.seed());
  const std::vector<std::int64_t> cols = reference_cols(c.N, c.K, p.seed());
  report.rows_checked = static_cast<std::int64_t>(rows.size());
  report.cols_checked = static_cast<std::int64_t>(cols.size());

  const std::vector<float> x = download_rows(p.x().data(), rows, c.K, p.args().ldx, c.dtype);
  const std::vector<float> gate = download_rows(p.gate().data(), cols, c.K, c.K, c.dtype);
  const std::vector<float> up = download_rows(p.up().data(), cols, c.K, c.K, c.dtype);
  std::vector<float> gate_bias, up_bias;
  for (std::int64_t n : cols) {
    if (c.bias) {
      gate_bias.push_back(p.gate_bias()[n]);
      up_bias.push_back(p.up_bias()[n]);
    }
  }
  reference::GatedOperands g;
  g.N = static_cast<std::int64_t>(cols.size());
  g.K = c.K;
  g.x = x.data();
  g.ldx = c.K;
  g.gate = gate.data();
  g.up = up.data();
  g.gate_bias = c.bias ? gate_bias.data() : nullptr;
  g.up_bias = c.bias ? up_bias.data() : nullptr;
  g.activation = c.activation;
  g.limit = c.limit;
  g.scale = c.scale;
  std::vector<std::int64_t> local_rows(rows.size());
  for (std::size_t r = 0; r < rows.size(); ++r) local_rows[r] = static_cast<std::int64_t>(r);
  const reference::GateUpValues values = reference::gate_up_rows(g, local_rows);
  const std::vector<double> ref = reference::gated_rows(g, values);
  const std::vector<double> unfused = reference::unfused_gated_rows(g, c.dtype, values);

  // The output: every element of the whole [M, N] written (finite, or, when the case feeds NaN and
  // inf on purpose, no longer the finite poison pattern), padding untouched; values on the sample.
  const std::size_t elem = dtype_bytes(c.dtype);
  const std::uint8_t poison = p.poison_byte();
  std::vector<std::uint8_t> bytes(static_cast<std::size_t>(c.M * ldo) * elem);
  EPIFUSE_CHECK_CUDA(cudaMemcpy(bytes.data(), out, bytes.size(), cudaMemcpyDeviceToHost));
  std::int64_t unwritten = 0, padding_written = 0;
#pragma omp parallel for reduction(+ : unwritten, padding_written) schedule(static)
  for (std::int64_t m = 0; m < c.M; ++m) {
    for (std::int64_t n = 0; n < c.N; ++n) {
      const std::size_t at = static_cast<std::size_t>(m * ldo + n) * elem;
      if (c.special_values) {
        unwritten += std::all_of(&bytes[at], &bytes[at] + elem, [&](std::uint8_t b) { return b == poison; });
      } else {
        unwritten += !std::isfinite(reference::load_as_float(bytes.data(), c.dtype, m * ldo + n));
      }
    }
    for (std::size_t b = (m * ldo + c.N) * elem; b < static_cast<std::size_t>((m + 1) * ldo) * elem; ++b) {
      if (bytes[b] != poison) ++padding_written;
    }
  }
  std::vector<double> got(ref.size());
  for (std::size_t r = 0; r < rows.size(); ++r) {
    for (std::size_t j = 0; j < cols.size(); ++j) {
      got[r * cols.size() + j] = reference::load_as_float(bytes.data(), c.dtype, rows[r] * ldo + cols[j]);
    }
  }

  report.unfused_rel_l2 = rel_l2(unfused, ref);
  const std::vector<double> error_scale = gated_error_scale(g, values);
  report.ours = judge == Judge::kFused ? judge_fused(got, ref, c.dtype, c.K, &error_scale)
                                       : judge_baseline(got, ref, report.unfused_rel_l2, c.dtype, 2.0);
  report.text = "case " + c.name() + ", seed " + std::to_string(p.seed()) + "\n";
  report.text += "  ours    vs fp64: " + report.ours.to_string() + "\n";
  report.text += fmt("  unfused vs fp64: rel_l2 %.3e\n", report.unfused_rel_l2);
  auto fail = [&](const std::string& why) {
    report.passed = false;
    report.text += "  FAIL: " + why + "\n";
  };
  if (unwritten) fail(std::to_string(unwritten) + " output elements not written (still poison) or non-finite");
  if (padding_written) fail(std::to_string(padding_written) + " padding bytes between N and ldo were written");
  if (!report.ours.passed) {
    report.passed = false;
    report.text += report.ours.failures();
    if (report.ours.worst >= 0) {
      report.text += fmt("  worst element: out %.8g, ref %.8g\n", got[report.ours.worst], ref[report.ours.worst]);
    }
  }
  return report;
}

GatedReport run_and_check_gated(GatedProblem& p, cudaStream_t stream) {
  GatedReport report;
  std::optional<KernelChoice> choice;
  if (Status s = selected_kernel(p.args(), stream, &choice); !s.ok()) {
    report.text = "FAIL: selected_kernel: " + s.to_string();
    return report;
  }
  const std::string kernel = choice ? to_string(*choice) : "none";
  const std::uint64_t inputs = p.inputs_fingerprint();
  p.poison_output();
  if (Status s = gated_mlp(p.args(), stream); !s.ok()) {
    report.text = "FAIL: gated_mlp returned " + s.to_string();
    return report;
  }
  if (cudaError_t err = cudaDeviceSynchronize(); err != cudaSuccess) {
    report.text = std::string("FAIL: kernel error: ") + cudaGetErrorString(err);
    return report;
  }
  report = check_gated_output(p, p.out().data(), p.args().ldo);
  report.kernel = kernel;
  if (!p.out().guard_intact()) {
    report.passed = false;
    report.text += "  FAIL: bytes past the end of out were written\n";
  }
  if (p.workspace().data() && !p.workspace().guard_intact()) {
    report.passed = false;
    report.text += "  FAIL: bytes past the end of the workspace were written\n";
  }
  if (p.inputs_fingerprint() != inputs) {
    report.passed = false;
    report.text += "  FAIL: the call changed an input\n";
  }
  return report;
}

}  // namespace epifuse::testing

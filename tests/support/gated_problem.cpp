#include "tests/support/gated_problem.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <random>
#include <set>
#include <stdexcept>

#include <cuda_runtime_api.h>

#include "reference/gated.hpp"
#include "reference/numeric.hpp"
#include "tests/support/gemm_check.hpp"
#include "tests/support/random.hpp"
#include "tests/support/tolerances.hpp"

namespace epifuse::testing {
namespace {

constexpr double kFullReferenceWeights = 1u << 26;  // N·K up to 64 Mi elements: download whole weights
constexpr int kSampledCols = 320;

// Host fp32 copies of rows `rows` of a [*, ld] device matrix, `cols` wide.
std::vector<float> download_rows(const void* data, const std::vector<std::int64_t>& rows, std::int64_t cols,
                                 std::int64_t ld, DType dtype) {
  const std::size_t elem = dtype_bytes(dtype);
  std::vector<std::uint8_t> bytes(rows.size() * cols * elem);
  for (std::size_t r = 0; r < rows.size(); ++r) {
    EPIFUSE_CHECK_CUDA(cudaMemcpy(bytes.data() + r * cols * elem, static_cast<const std::uint8_t*>(data) + rows[r] * ld * elem,
                                  cols * elem, cudaMemcpyDeviceToHost));
  }
  std::vector<float> out(rows.size() * cols);
  for (std::size_t i = 0; i < out.size(); ++i) out[i] = reference::load_as_float(bytes.data(), dtype, static_cast<std::int64_t>(i));
  return out;
}

std::vector<std::int64_t> reference_cols(std::int64_t N, std::int64_t K, std::uint64_t seed) {
  std::vector<std::int64_t> cols;
  if (static_cast<double>(N) * K <= kFullReferenceWeights) {
    for (std::int64_t n = 0; n < N; ++n) cols.push_back(n);
    return cols;
  }
  std::set<std::int64_t> picked;
  for (std::int64_t n = 0; n < std::min<std::int64_t>(16, N); ++n) picked.insert({n, N - 1 - n});  // both ends
  for (std::int64_t edge : {64, 128, 256}) {
    for (std::int64_t n = edge - 8; n < edge + 8 && n < N; ++n) picked.insert(n);  // tile edges
  }
  std::mt19937_64 rng(seed);
  std::uniform_int_distribution<std::int64_t> any(0, N - 1);
  const std::size_t wanted = static_cast<std::size_t>(std::min<std::int64_t>(kSampledCols, N));
  while (picked.size() < wanted) picked.insert(any(rng));
  return {picked.begin(), picked.end()};
}

std::string fmt(const char* format, double a, double b = 0, double c = 0) {
  char buf[256];
  std::snprintf(buf, sizeof(buf), format, a, b, c);
  return buf;
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
  args_.x = x_.data();
  args_.ldx = ldx;
  args_.out = out_.data();
  args_.ldo = ldo;
  args_.activation = c.activation;
  if (c.limit > 0.0f) args_.limit = c.limit;
  args_.scale = c.scale;
  args_.kernel = case_.kernel.empty() ? nullptr : case_.kernel.c_str();
}

GatedReport check_gated_output(const GatedProblem& p, const void* out, std::int64_t ldo, GatedJudge judge) {
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

  // The output: every element of the whole [M, N] finite, padding untouched; values on the sample.
  const std::size_t elem = dtype_bytes(c.dtype);
  std::vector<std::uint8_t> bytes(static_cast<std::size_t>(c.M * ldo) * elem);
  EPIFUSE_CHECK_CUDA(cudaMemcpy(bytes.data(), out, bytes.size(), cudaMemcpyDeviceToHost));
  std::int64_t unwritten = 0, padding_written = 0;
#pragma omp parallel for reduction(+ : unwritten, padding_written) schedule(static)
  for (std::int64_t m = 0; m < c.M; ++m) {
    for (std::int64_t n = 0; n < c.N; ++n) {
      if (!std::isfinite(reference::load_as_float(bytes.data(), c.dtype, m * ldo + n))) ++unwritten;
    }
    for (std::size_t b = (m * ldo + c.N) * elem; b < static_cast<std::size_t>((m + 1) * ldo) * elem; ++b) {
      if (bytes[b] != kPoisonByte) ++padding_written;
    }
  }
  std::vector<double> got(ref.size());
  for (std::size_t r = 0; r < rows.size(); ++r) {
    for (std::size_t j = 0; j < cols.size(); ++j) {
      got[r * cols.size() + j] = reference::load_as_float(bytes.data(), c.dtype, rows[r] * ldo + cols[j]);
    }
  }

  const Tolerance tol = tolerance_for(c.dtype);
  report.fused = error_stats(got, ref);
  report.unfused = error_stats(unfused, ref);
  const bool fused = judge == GatedJudge::kFused;
  const double allowed = fused ? std::min(tol.rel_l2, kUnfusedFactor * report.unfused.rel_l2 + tol.noise) : tol.rel_l2;
  const double elem_limit = fused ? tol.elem : 2.0 * tol.elem;
  report.text = "case " + c.name() + ", seed " + std::to_string(p.seed()) + "\n";
  report.text += "  ours    vs fp64: " + report.fused.to_string() + "\n";
  report.text += "  unfused vs fp64: " + report.unfused.to_string() + "\n";
  auto fail = [&](const std::string& why) {
    report.passed = false;
    report.text += "  FAIL: " + why + "\n";
  };
  if (unwritten) fail(std::to_string(unwritten) + " output elements not written (still NaN) or non-finite");
  if (padding_written) fail(std::to_string(padding_written) + " padding bytes between N and ldo were written");
  if (report.fused.rel_l2 > allowed) {
    fail(fmt("rel_l2 %.3e > allowed %.3e (ceiling %.1e; fused also within 2x unfused + noise)", report.fused.rel_l2, allowed,
             tol.rel_l2));
  }
  if (report.fused.max_elem > elem_limit) {
    fail(fmt("max_elem %.3e > %.3e", report.fused.max_elem, elem_limit) +
         fmt(" (out %.6g, ref %.6g)", got[report.fused.worst], ref[report.fused.worst]));
  }
  return report;
}

GatedReport run_and_check_gated(GatedProblem& p) {
  GatedReport report;
  if (Status s = gated_selected_kernel(p.args(), &report.kernel); !s.ok()) {
    report.text = "FAIL: gated_selected_kernel: " + s.to_string();
    return report;
  }
  p.poison_output();
  if (Status s = gated_mlp(p.args(), nullptr); !s.ok()) {
    report.text = "FAIL: gated_mlp returned " + s.to_string();
    return report;
  }
  if (cudaError_t err = cudaDeviceSynchronize(); err != cudaSuccess) {
    report.text = std::string("FAIL: kernel error: ") + cudaGetErrorString(err);
    return report;
  }
  const std::string kernel = report.kernel;
  report = check_gated_output(p, p.out().data(), p.args().ldo);
  report.kernel = kernel;
  if (!p.out().guard_intact()) {
    report.passed = false;
    report.text += "  FAIL: bytes past the end of out were written\n";
  }
  return report;
}

}  // namespace epifuse::testing

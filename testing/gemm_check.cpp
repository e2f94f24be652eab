#include "testing/gemm_check.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <random>
#include <set>
#include <stdexcept>

#include <cuda_runtime_api.h>

#include "epifuse/tuning.hpp"
#include "reference/gemm.hpp"
#include "reference/numeric.hpp"
#include "testing/tolerances.hpp"

namespace epifuse::testing {
namespace {

constexpr double kFullReferenceMacs = 1ull << 33;  // ~8.6 GMAC: seconds on a many-core host
constexpr int kSampledRows = 48;
constexpr double kFullReferenceColumns = 1u << 26;  // N·K up to 64 Mi elements: every column
constexpr int kSampledCols = 320;

std::string fmt(const char* format, double a, double b = 0, double c = 0) {
  char buf[256];
  std::snprintf(buf, sizeof(buf), format, a, b, c);
  return buf;
}

std::vector<float> to_float(const std::vector<std::uint8_t>& bytes, DType dtype) {
  const std::size_t n = bytes.size() / dtype_bytes(dtype);
  std::vector<float> out(n);
  for (std::size_t i = 0; i < n; ++i) out[i] = reference::load_as_float(bytes.data(), dtype, static_cast<std::int64_t>(i));
  return out;
}

std::vector<float> download_as_float(const void* device, std::size_t elems, DType dtype) {
  std::vector<std::uint8_t> bytes(elems * dtype_bytes(dtype));
  const cudaError_t err = cudaMemcpy(bytes.data(), device, bytes.size(), cudaMemcpyDeviceToHost);
  if (err != cudaSuccess) throw std::runtime_error(std::string("cudaMemcpy: ") + cudaGetErrorString(err));
  return to_float(bytes, dtype);
}

// The epilogue's operands on the host, as the reference takes them.
struct HostEpilogue {
  std::vector<float> c;
  reference::EpilogueOperands operands;
};

HostEpilogue host_epilogue(const GemmProblem& p, const EpilogueSpec& spec) {
  const GemmCase& c = p.spec();
  HostEpilogue h;
  const Epilogue& e = p.args().epilogue;
  reference::EpilogueOperands& r = h.operands;
  auto ptr = [](const std::vector<float>& v) { return v.empty() ? nullptr : v.data(); };
  r.alpha = spec.alpha ? e.alpha : 1.0;
  r.row_scale = spec.row_scale ? ptr(p.row_scale()) : nullptr;
  r.col_scale = spec.col_scale ? ptr(p.col_scale()) : nullptr;
  r.col_bias = spec.col_bias ? ptr(p.col_bias()) : nullptr;
  r.row_bias = spec.row_bias ? ptr(p.row_bias()) : nullptr;
  r.activation = {spec.activation, e.leaky_slope, e.clamp_lo, e.clamp_hi};
  if (spec.residual != Residual::kNone) {
    h.c = to_float(p.residual_bytes(), c.output);
    r.residual = h.c.data();
    r.ldc = p.ldd();
    r.beta = e.beta;
    r.residual_order = e.residual_order;
  }
  return h;
}

struct Values {
  std::vector<double> fused, unfused, out;  // over the reference cells
};

// `out_bytes`: the whole output as stored, [M, ldd] of `dtype`; only the reference cells are read.
Values reference_values(const ReferenceAccumulators& ref, const HostEpilogue& h, DType dtype,
                        const std::vector<std::uint8_t>& out_bytes, std::int64_t ldd) {
  Values v;
  v.fused = reference::fused_cells(h.operands, ref.cells, ref.acc);
  v.unfused = reference::unfused_cells(h.operands, dtype, ref.cells, ref.acc);
  v.out.resize(v.fused.size());
  const std::size_t C = ref.cells.cols.size();
  for (std::size_t r = 0; r < ref.cells.rows.size(); ++r) {
    for (std::size_t c = 0; c < C; ++c) {
      v.out[r * C + c] = reference::load_as_float(out_bytes.data(), dtype, ref.cells.rows[r] * ldd + ref.cells.cols[c]);
    }
  }
  return v;
}

void judge_values(const Values& v, DType dtype, std::int64_t K, Judge judge, CheckReport* report) {
  report->unfused_rel_l2 = rel_l2(v.unfused, v.fused);
  report->ours = judge == Judge::kFused ? judge_fused(v.out, v.fused, dtype, K)
                                        : judge_baseline(v.out, v.fused, report->unfused_rel_l2, dtype);
  report->text += "  ours    vs fp64: " + report->ours.to_string() + "\n";
  report->text += fmt("  unfused vs fp64: rel_l2 %.3e\n", report->unfused_rel_l2);
  if (!report->ours.passed) {
    report->passed = false;
    report->text += report->ours.failures();
    if (report->ours.worst >= 0) {
      report->text += fmt("  worst element: out %.8g, ref %.8g\n", v.out[report->ours.worst], v.fused[report->ours.worst]);
    }
  }
}

// Every element written (finite, or, when the case feeds NaN and inf on purpose, no longer the
// finite poison pattern); padding between N and ldd and every guard band still poisoned.
void judge_coverage(const std::vector<std::uint8_t>& d_bytes, const GemmProblem& p, CheckReport* report) {
  const GemmCase& c = p.spec();
  const std::size_t elem = dtype_bytes(c.output);
  const std::uint8_t poison = p.poison_byte();
  std::int64_t unwritten = 0, padding_written = 0;
#pragma omp parallel for reduction(+ : unwritten, padding_written) schedule(static)
  for (std::int64_t m = 0; m < c.M; ++m) {
    for (std::int64_t n = 0; n < c.N; ++n) {
      const std::size_t at = static_cast<std::size_t>(m * p.ldd() + n) * elem;
      if (c.special_values) {
        unwritten += std::all_of(&d_bytes[at], &d_bytes[at] + elem, [&](std::uint8_t b) { return b == poison; });
      } else {
        unwritten += !std::isfinite(reference::load_as_float(d_bytes.data(), c.output, m * p.ldd() + n));
      }
    }
    for (std::size_t byte = (m * p.ldd() + c.N) * elem; byte < static_cast<std::size_t>((m + 1) * p.ldd()) * elem; ++byte) {
      if (d_bytes[byte] != poison) ++padding_written;
    }
  }
  if (unwritten) {
    report->passed = false;
    report->text += "  FAIL: " + std::to_string(unwritten) + " output elements not written (still poison) or non-finite\n";
  }
  if (padding_written) {
    report->passed = false;
    report->text += "  FAIL: " + std::to_string(padding_written) + " padding bytes between N and ldd were written\n";
  }
  for (const DeviceBuffer* b : p.outputs()) {
    if (!b->guard_intact()) {
      report->passed = false;
      report->text += "  FAIL: bytes past the end of an output (D, a reduction or the workspace) were written\n";
    }
  }
}

void judge_vector(const char* name, const std::vector<float>& got, const std::vector<double>& ref,
                  const std::vector<double>& scale, double tol, CheckReport* report) {
  double worst = 0.0;
  std::size_t at = 0;
  for (std::size_t i = 0; i < ref.size(); ++i) {
    const double err = std::isfinite(got[i]) ? std::fabs(got[i] - ref[i]) / (scale[i] + 1e-30) : INFINITY;
    if (err > worst) {
      worst = err;
      at = i;
    }
  }
  report->text += std::string("  ") + name + fmt(": max error %.3e of its scale (limit %.1e)\n", worst, tol);
  if (worst > tol) {
    report->passed = false;
    report->text += std::string("  FAIL: ") + name + fmt(" at %.0f: got %.8g, ref %.8g\n", static_cast<double>(at), got[at], ref[at]);
  }
}

// A reduction's error scale: each term's own error is relative to max(|y|, rms(y)) (fp32
// accumulation over K products), so a sum of n terms is judged against Σ|y| + n·rms and a
// maximum against max|y| + rms. Row reductions need every column, column reductions and amax
// every row.
void judge_reductions(const GemmProblem& p, const reference::Cells& cells, const Values& v, CheckReport* report) {
  const GemmCase& c = p.spec();
  const unsigned wanted = c.epilogue.reductions;
  if (!wanted) return;
  const auto R = static_cast<std::int64_t>(cells.rows.size());
  const auto C = static_cast<std::int64_t>(cells.cols.size());
  const bool all_rows = R == c.M, all_cols = C == c.N;
  const reference::Reductions ref = reference::reduce(v.fused, R, C);
  double sum_sq = 0.0;
  for (double y : v.fused) sum_sq += y * y;
  const double rms = v.fused.empty() ? 0.0 : std::sqrt(sum_sq / static_cast<double>(v.fused.size()));
  auto shifted = [](const std::vector<double>& base, double add) {
    std::vector<double> out(base);
    for (double& x : out) x += add;
    return out;
  };
  auto got = [&](unsigned flag, std::size_t length) {
    return download_as_float(p.reduction(flag)->data(), length, DType::kFP32);
  };
  auto pick_rows = [&](const std::vector<float>& full) {
    std::vector<float> picked;
    for (std::int64_t r : cells.rows) picked.push_back(full[r]);
    return picked;
  };
  if (!all_cols) {
    if (wanted & (kRowSum | kRowAmax)) report->text += "  row reductions: not checked (sampled columns)\n";
  } else {
    if (wanted & kRowSum) {
      judge_vector("row_sum", pick_rows(got(kRowSum, c.M)), ref.row_sum, shifted(ref.row_abs_sum, c.N * rms),
                   reduction_tolerance(c.K), report);
    }
    if (wanted & kRowAmax) {
      judge_vector("row_amax", pick_rows(got(kRowAmax, c.M)), ref.row_amax, shifted(ref.row_amax, rms),
                   reduction_tolerance(c.K), report);
    }
  }
  if (!all_rows || !all_cols) {
    if (wanted & (kColSum | kColAmax | kAmax)) report->text += "  column reductions and amax: not checked (sampled)\n";
    return;
  }
  if (wanted & kColSum) {
    judge_vector("col_sum", got(kColSum, c.N), ref.col_sum, shifted(ref.col_abs_sum, R * rms), reduction_tolerance(c.K),
                 report);
  }
  if (wanted & kColAmax) {
    judge_vector("col_amax", got(kColAmax, c.N), ref.col_amax, shifted(ref.col_amax, rms), reduction_tolerance(c.K),
                 report);
  }
  if (wanted & kAmax) {
    judge_vector("amax", got(kAmax, 1), {ref.amax}, {ref.amax + rms}, reduction_tolerance(c.K), report);
  }
}

}  // namespace

std::vector<std::int64_t> reference_rows(std::int64_t M, std::int64_t N, std::int64_t K, std::uint64_t seed) {
  std::vector<std::int64_t> rows;
  if (static_cast<double>(M) * N * K <= kFullReferenceMacs || M <= kSampledRows) {
    for (std::int64_t m = 0; m < M; ++m) rows.push_back(m);
    return rows;
  }
  std::set<std::int64_t> picked = {0, 1, M / 2, M - 2, M - 1};
  for (std::int64_t edge : {63, 64, 127, 128, 255, 256}) {
    if (edge < M) picked.insert(edge);
  }
  std::mt19937_64 rng(seed);
  std::uniform_int_distribution<std::int64_t> any_row(0, M - 1);
  while (static_cast<int>(picked.size()) < kSampledRows) picked.insert(any_row(rng));
  return {picked.begin(), picked.end()};
}

std::vector<std::int64_t> reference_cols(std::int64_t N, std::int64_t K, std::uint64_t seed) {
  std::vector<std::int64_t> cols;
  if (static_cast<double>(N) * K <= kFullReferenceColumns || N <= kSampledCols) {
    for (std::int64_t n = 0; n < N; ++n) cols.push_back(n);
    return cols;
  }
  std::set<std::int64_t> picked;
  for (std::int64_t n = 0; n < 16; ++n) picked.insert({n, N - 1 - n});  // both ends
  for (std::int64_t edge : {64, 128, 256}) {
    for (std::int64_t n = edge - 8; n < edge + 8; ++n) picked.insert(n);  // tile edges
  }
  std::mt19937_64 rng(seed);
  std::uniform_int_distribution<std::int64_t> any(0, N - 1);
  while (picked.size() < static_cast<std::size_t>(kSampledCols)) picked.insert(any(rng));
  return {picked.begin(), picked.end()};
}

std::vector<float> download_rows(const void* data, const std::vector<std::int64_t>& rows, std::int64_t cols,
                                 std::int64_t ld, DType dtype) {
  const std::size_t elem = dtype_bytes(dtype);
  std::vector<std::uint8_t> bytes(rows.size() * cols * elem);
  for (std::size_t r = 0; r < rows.size(); ++r) {
    EPIFUSE_CHECK_CUDA(cudaMemcpy(bytes.data() + r * cols * elem,
                                  static_cast<const std::uint8_t*>(data) + rows[r] * ld * elem, cols * elem,
                                  cudaMemcpyDeviceToHost));
  }
  return to_float(bytes, dtype);
}

ReferenceAccumulators reference_accumulators(const GemmProblem& p) {
  const GemmCase& c = p.spec();
  EPIFUSE_CHECK_CUDA(cudaDeviceSynchronize());
  ReferenceAccumulators ref;
  ref.cells = {reference_rows(c.M, c.N, c.K, p.seed()), reference_cols(c.N, c.K, p.seed())};
  // Only the sampled rows of A and B travel; the reference indexes them 0, 1, ...
  const std::vector<float> a = download_rows(p.a().data(), ref.cells.rows, c.K, p.lda(), c.input);
  const std::vector<float> b = download_rows(p.b().data(), ref.cells.cols, c.K, c.K, c.input);
  reference::Cells local;
  for (std::size_t r = 0; r < ref.cells.rows.size(); ++r) local.rows.push_back(static_cast<std::int64_t>(r));
  for (std::size_t n = 0; n < ref.cells.cols.size(); ++n) local.cols.push_back(static_cast<std::int64_t>(n));
  ref.acc = reference::gemm_cells({0, 0, c.K, a.data(), c.K, b.data(), c.K}, local);
  return ref;
}

CheckReport run_and_check(GemmProblem& p, const ReferenceAccumulators* reference, cudaStream_t stream) {
  const GemmCase& c = p.spec();
  CheckReport report;
  report.passed = true;
  report.text = "case " + c.name() + ", seed " + std::to_string(p.seed()) + "\n";
  std::optional<KernelChoice> choice;
  bool delegated = false;
  if (Status s = selected_kernel(p.args(), stream, &choice, &delegated); !s.ok()) {
    report.passed = false;
    report.text += "  FAIL: selected_kernel: " + s.to_string() + "\n";
    return report;
  }
  report.kernel = delegated ? std::string(kDelegatedKernelName) : choice ? to_string(*choice) : "none";
  report.text += "  kernel " + report.kernel + "\n";

  const std::uint64_t inputs = p.inputs_fingerprint();
  p.poison_outputs();
  if (Status s = gemm(p.args(), stream); !s.ok()) {
    report.passed = false;
    report.text += "  FAIL: gemm returned " + s.to_string() + "\n";
    return report;
  }
  if (cudaError_t err = cudaDeviceSynchronize(); err != cudaSuccess) {
    report.passed = false;
    report.text += std::string("  FAIL: kernel error: ") + cudaGetErrorString(err) + "\n";
    return report;
  }
  if (p.inputs_fingerprint() != inputs) {
    report.passed = false;
    report.text += "  FAIL: the call changed an input\n";
  }

  const std::vector<std::uint8_t> d_bytes = p.d().download();
  judge_coverage(d_bytes, p, &report);
  const ReferenceAccumulators computed = reference ? ReferenceAccumulators{} : reference_accumulators(p);
  const ReferenceAccumulators& ref = reference ? *reference : computed;
  report.rows_checked = static_cast<std::int64_t>(ref.cells.rows.size());
  report.text += "  reference: " + std::to_string(ref.cells.rows.size()) + " of " + std::to_string(c.M) + " rows, " +
                 std::to_string(ref.cells.cols.size()) + " of " + std::to_string(c.N) + " columns\n";
  const Values v = reference_values(ref, host_epilogue(p, c.epilogue), c.output, d_bytes, p.ldd());
  judge_values(v, c.output, c.K, Judge::kFused, &report);
  judge_reductions(p, ref.cells, v, &report);
  return report;
}

CheckReport check_external_output(const GemmProblem& p, const ReferenceAccumulators& ref, const void* d,
                                  std::int64_t ldd, DType dtype, const EpilogueSpec& spec, Judge judge) {
  const GemmCase& c = p.spec();
  CheckReport report;
  report.passed = true;
  report.text = "external output for " + c.name() + " as " + spec.name() + "\n";
  report.rows_checked = static_cast<std::int64_t>(ref.cells.rows.size());
  std::vector<std::uint8_t> out(static_cast<std::size_t>(c.M * ldd) * dtype_bytes(dtype));
  if (cudaError_t err = cudaMemcpy(out.data(), d, out.size(), cudaMemcpyDeviceToHost); err != cudaSuccess) {
    throw std::runtime_error(std::string("cudaMemcpy: ") + cudaGetErrorString(err));
  }
  std::int64_t nonfinite = 0;
#pragma omp parallel for reduction(+ : nonfinite) schedule(static)
  for (std::int64_t m = 0; m < c.M; ++m) {
    for (std::int64_t n = 0; n < c.N; ++n) nonfinite += !std::isfinite(reference::load_as_float(out.data(), dtype, m * ldd + n));
  }
  if (nonfinite) {
    report.passed = false;
    report.text += "  FAIL: " + std::to_string(nonfinite) + " outputs not written (NaN poison) or non-finite\n";
  }
  const Values v = reference_values(ref, host_epilogue(p, spec), dtype, out, ldd);
  judge_values(v, dtype, c.K, judge, &report);
  return report;
}

}  // namespace epifuse::testing

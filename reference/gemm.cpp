#include "reference/gemm.hpp"

#include <algorithm>
#include <cmath>

#include "reference/numeric.hpp"

namespace epifuse::reference {

std::vector<double> gemm_cells(const GemmOperands& g, const Cells& cells) {
  const auto R = static_cast<std::int64_t>(cells.rows.size());
  const auto C = static_cast<std::int64_t>(cells.cols.size());
  std::vector<double> acc(cells.size());
#pragma omp parallel for collapse(2) schedule(static)
  for (std::int64_t r = 0; r < R; ++r) {
    for (std::int64_t c = 0; c < C; ++c) {
      const float* a = g.A + cells.rows[r] * g.lda;
      const float* b = g.B + cells.cols[c] * g.ldb;
      double sum = 0.0;
#pragma omp simd reduction(+ : sum)
      for (std::int64_t k = 0; k < g.K; ++k) sum += static_cast<double>(a[k]) * static_cast<double>(b[k]);
      acc[r * C + c] = sum;
    }
  }
  return acc;
}

std::vector<double> gemm_rows(const GemmOperands& g, const std::vector<std::int64_t>& rows) {
  Cells cells{rows, std::vector<std::int64_t>(static_cast<std::size_t>(g.N))};
  for (std::int64_t n = 0; n < g.N; ++n) cells.cols[n] = n;
  return gemm_cells(g, cells);
}

namespace {

double residual_at(const EpilogueOperands& e, std::int64_t m, std::int64_t n) {
  return e.residual ? e.beta * static_cast<double>(e.residual[m * e.ldc + n]) : 0.0;
}

double vector_or(const float* v, std::int64_t i, double absent) { return v ? static_cast<double>(v[i]) : absent; }

}  // namespace

double linear_activation(const EpilogueOperands& e, std::int64_t m, std::int64_t n, double acc) {
  double z = e.alpha * vector_or(e.row_scale, m, 1.0) * vector_or(e.col_scale, n, 1.0) * acc +
             vector_or(e.col_bias, n, 0.0) + vector_or(e.row_bias, m, 0.0);
  if (e.residual_order == ResidualOrder::kBeforeActivation) return activate(e.activation, z + residual_at(e, m, n));
  return activate(e.activation, z) + residual_at(e, m, n);
}

std::vector<double> fused_cells(const EpilogueOperands& e, const Cells& cells, const std::vector<double>& acc) {
  std::vector<double> y(acc.size());
  const auto R = static_cast<std::int64_t>(cells.rows.size());
  const auto C = static_cast<std::int64_t>(cells.cols.size());
#pragma omp parallel for collapse(2) schedule(static)
  for (std::int64_t r = 0; r < R; ++r) {
    for (std::int64_t c = 0; c < C; ++c) y[r * C + c] = linear_activation(e, cells.rows[r], cells.cols[c], acc[r * C + c]);
  }
  return y;
}

std::vector<double> unfused_cells(const EpilogueOperands& e, DType dtype, const Cells& cells,
                                  const std::vector<double>& acc) {
  std::vector<double> y(acc.size());
  const auto R = static_cast<std::int64_t>(cells.rows.size());
  const auto C = static_cast<std::int64_t>(cells.cols.size());
  const bool residual_first = e.residual_order == ResidualOrder::kBeforeActivation;
#pragma omp parallel for collapse(2) schedule(static)
  for (std::int64_t r = 0; r < R; ++r) {
    for (std::int64_t c = 0; c < C; ++c) {
      const std::int64_t m = cells.rows[r], n = cells.cols[c];
      // Each op reads the previous op's stored tensor and computes in fp32.
      auto store = [dtype](double v) { return static_cast<double>(round_to(dtype, static_cast<float>(v))); };
      double t = store(acc[r * C + c]);
      if (e.alpha != 1.0) t = store(static_cast<float>(e.alpha) * static_cast<float>(t));
      if (e.row_scale) t = store(e.row_scale[m] * static_cast<float>(t));
      if (e.col_scale) t = store(e.col_scale[n] * static_cast<float>(t));
      if (e.col_bias) t = store(static_cast<float>(t) + e.col_bias[n]);
      if (e.row_bias) t = store(static_cast<float>(t) + e.row_bias[m]);
      if (e.residual && residual_first) t = store(static_cast<float>(t) + static_cast<float>(residual_at(e, m, n)));
      if (e.activation.kind != Activation::kIdentity) t = store(static_cast<float>(activate(e.activation, t)));
      if (e.residual && !residual_first) t = store(static_cast<float>(t) + static_cast<float>(residual_at(e, m, n)));
      y[r * C + c] = t;
    }
  }
  return y;
}

Reductions reduce(const std::vector<double>& y, std::int64_t rows, std::int64_t N) {
  Reductions out;
  out.row_sum.assign(rows, 0.0);
  out.row_amax.assign(rows, 0.0);
  out.row_abs_sum.assign(rows, 0.0);
  out.col_sum.assign(N, 0.0);
  out.col_amax.assign(N, 0.0);
  out.col_abs_sum.assign(N, 0.0);
  for (std::int64_t r = 0; r < rows; ++r) {
    for (std::int64_t n = 0; n < N; ++n) {
      const double v = y[r * N + n];
      out.row_sum[r] += v;
      out.col_sum[n] += v;
      out.row_abs_sum[r] += std::fabs(v);
      out.col_abs_sum[n] += std::fabs(v);
      out.row_amax[r] = std::max(out.row_amax[r], std::fabs(v));
      out.col_amax[n] = std::max(out.col_amax[n], std::fabs(v));
      out.amax = std::max(out.amax, std::fabs(v));
    }
  }
  return out;
}

}  // namespace epifuse::reference

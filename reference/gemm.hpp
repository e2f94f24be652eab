// fp64 CPU mirror of epifuse::gemm: the GEMM, every epilogue node, the reductions, and the
// standard unfused path (GEMM, then one eager fp32 kernel per op) that the accuracy rule
// compares against. Operands are host fp32 copies of the exact bf16/fp16 values the GPU sees.
#pragma once

#include <cstdint>
#include <vector>

#include "epifuse/epilogue/epilogue.hpp"
#include "epifuse/types.hpp"
#include "reference/activation.hpp"

namespace epifuse::reference {

struct GemmOperands {
  std::int64_t M = 0, N = 0, K = 0;
  const float* A = nullptr;  // [M, lda]
  std::int64_t lda = 0;
  const float* B = nullptr;  // [N, ldb]
  std::int64_t ldb = 0;
};

// Mirrors epifuse::Epilogue with host operands; null vectors are absent.
struct EpilogueOperands {
  double alpha = 1.0;
  const float* row_scale = nullptr;  // [M]
  const float* col_scale = nullptr;  // [N]
  const float* col_bias = nullptr;   // [N]
  const float* row_bias = nullptr;   // [M]
  ActivationParams activation;
  const float* residual = nullptr;  // C [M, ldc]
  std::int64_t ldc = 0;
  double beta = 1.0;
  ResidualOrder residual_order = ResidualOrder::kAfterActivation;
};

// The elements a check computes: every (row, column) pair of `rows` × `cols`, row-major.
struct Cells {
  std::vector<std::int64_t> rows, cols;
  std::size_t size() const { return rows.size() * cols.size(); }
};

// acc[r, c] = Σ_k A[rows[r], k] · B[cols[c], k] in fp64.
std::vector<double> gemm_cells(const GemmOperands& g, const Cells& cells);
// Every column: [rows.size(), N].
std::vector<double> gemm_rows(const GemmOperands& g, const std::vector<std::int64_t>& rows);

// Mirror of the device LinearActivation node for element (m, n).
double linear_activation(const EpilogueOperands& e, std::int64_t m, std::int64_t n, double acc);

// y = linear_activation(acc) for every cell.
std::vector<double> fused_cells(const EpilogueOperands& e, const Cells& cells, const std::vector<double>& acc);

// The unfused eager path: the GEMM's result stored in `dtype`, then each present op as its own
// fp32 kernel whose result is stored in `dtype` (alpha, row_scale, col_scale, col_bias, row_bias,
// residual and activation in epilogue order).
std::vector<double> unfused_cells(const EpilogueOperands& e, DType dtype, const Cells& cells,
                                  const std::vector<double>& acc);

// Mirror of the reduction nodes over y [rows, N] (all rows of the problem for the column ones).
struct Reductions {
  std::vector<double> row_sum, row_amax;  // [rows]
  std::vector<double> col_sum, col_amax;  // [N]
  double amax = 0.0;
  std::vector<double> row_abs_sum, col_abs_sum;  // Σ|y|: the scale of a sum's rounding error
};
Reductions reduce(const std::vector<double>& y, std::int64_t rows, std::int64_t N);

}  // namespace epifuse::reference

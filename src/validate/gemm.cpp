// validate_gemm_args: every rule of include/epifuse/gemm.hpp, checked on the host before any
// launch, with a message naming the offending argument and its value.
#include <array>
#include <string>
#include <utility>

#include "epifuse/gemm.hpp"
#include "validate/operand_rules.hpp"

namespace epifuse {
namespace {

using detail::ByteRange;
using detail::ByteRanges;

constexpr const char* kOp = "gemm";

Status invalid(const std::string& message) { return detail::invalid(kOp, message); }

bool compiled_types(DType a, DType b, DType d) {
  if (a != b) return false;
  if (a == DType::kBF16) return d == DType::kBF16 || d == DType::kFP32;
  if (a == DType::kFP16) return d == DType::kFP16 || d == DType::kFP32;
  return false;
}

Status check_sizes_and_types(const GemmArgs& a) {
  const std::pair<const char*, std::int64_t> sizes[] = {{"M", a.M}, {"N", a.N}, {"K", a.K}};
  for (const auto& [name, value] : sizes) {
    if (Status s = detail::check_extent(kOp, name, value); !s.ok()) return s;
  }
  if (!compiled_types(a.a_dtype, a.b_dtype, a.d_dtype)) {
    return Status::not_supported(std::string("gemm: A ") + to_string(a.a_dtype) + ", B " + to_string(a.b_dtype) +
                                 ", D " + to_string(a.d_dtype) +
                                 " is not compiled; supported: A = B bf16 -> D bf16 or fp32, A = B fp16 -> D fp16 or fp32");
  }
  if (a.a_scale != nullptr || a.b_scale != nullptr) {
    return Status::not_supported("gemm: a_scale and b_scale dequantize FP8 operands; no FP8 kernel is compiled yet");
  }
  return Status::success();
}

// A column bias is fp32 or D's own 16-bit type (what a bf16 or fp16 nn.Linear holds).
Status check_col_bias_dtype(const GemmArgs& a) {
  const DType t = a.epilogue.col_bias_dtype;
  if (t == DType::kFP32 || (t == a.d_dtype && dtype_bytes(t) == 2)) return Status::success();
  const int value = static_cast<int>(t);
  if (value < static_cast<int>(DType::kBF16) || value > static_cast<int>(DType::kFP8E5M2)) {
    return invalid("epilogue.col_bias_dtype " + std::to_string(value) + " is not a DType");
  }
  return Status::not_supported(std::string("gemm: epilogue.col_bias_dtype ") + to_string(t) + " with D " +
                               to_string(a.d_dtype) + "; a column bias is fp32 or D's type where D is bf16 or fp16");
}

Status check_epilogue_values(const Epilogue& e) {
  const int kind = static_cast<int>(e.activation);
  if (kind < 0 || kind >= kActivationCount) return invalid("activation " + std::to_string(kind) + " is not an Activation");
  const int order = static_cast<int>(e.residual_order);
  if (order != static_cast<int>(ResidualOrder::kAfterActivation) &&
      order != static_cast<int>(ResidualOrder::kBeforeActivation)) {
    return invalid("residual_order " + std::to_string(order) + " is not a ResidualOrder");
  }
  for (Status s : {detail::check_finite(kOp, "epilogue.alpha", e.alpha), detail::check_finite(kOp, "epilogue.beta", e.beta),
                   detail::check_finite(kOp, "epilogue.leaky_slope", e.leaky_slope)}) {
    if (!s.ok()) return s;
  }
  if (e.activation == Activation::kClamp && !(e.clamp_lo <= e.clamp_hi)) {
    return invalid("clamp_lo (" + std::to_string(e.clamp_lo) + ") must be <= clamp_hi (" + std::to_string(e.clamp_hi) +
                   ")");
  }
  return Status::success();
}

// The epilogue vectors a call reads or writes, with their lengths (0: not used by this call) and
// element sizes (fp32 but for a 16-bit column bias).
struct Vector {
  const char* name;
  const void* ptr;
  std::int64_t length;
  bool output;
  std::size_t element_bytes = sizeof(float);
};

std::array<Vector, 9> vectors(const GemmArgs& a) {
  const Epilogue& e = a.epilogue;
  return {{{"epilogue.row_scale", e.row_scale, a.M, false},
           {"epilogue.col_scale", e.col_scale, a.N, false},
           {"epilogue.col_bias", e.col_bias, a.N, false, dtype_bytes(e.col_bias_dtype)},
           {"epilogue.row_bias", e.row_bias, a.M, false},
           {"epilogue.row_sum", e.row_sum, a.M, true},
           {"epilogue.row_amax", e.row_amax, a.M, true},
           {"epilogue.col_sum", e.col_sum, a.N, true},
           {"epilogue.col_amax", e.col_amax, a.N, true},
           {"epilogue.amax", e.amax, 1, true}}};
}

// Vectors: aligned, and their byte ranges as inputs or outputs. An empty call reads nothing and
// writes only the reductions over what is not empty (their identities), so only those count.
Status check_vectors(const GemmArgs& a, bool empty, ByteRanges* inputs, ByteRanges* outputs) {
  for (const Vector& v : vectors(a)) {
    if (v.ptr == nullptr || v.length == 0 || (empty && !v.output)) continue;
    if (Status s = detail::check_pointer(kOp, v.name, v.ptr, v.element_bytes); !s.ok()) return s;
    ByteRange r;
    if (Status s = detail::bytes_range(kOp, v.name, v.ptr, static_cast<std::uint64_t>(v.length) * v.element_bytes, &r);
        !s.ok()) {
      return s;
    }
    (v.output ? outputs : inputs)->push_back(r);
  }
  return Status::success();
}

Status check_matrices(const GemmArgs& a) {
  if (a.K == 0) return invalid("K must be >= 1 when M and N are not 0");
  for (Status s : {detail::check_row_length(kOp, "K", a.K, a.a_dtype), detail::check_row_length(kOp, "K", a.K, a.b_dtype),
                   detail::check_row_length(kOp, "N", a.N, a.d_dtype), detail::check_pointer(kOp, "A", a.A, 16),
                   detail::check_pointer(kOp, "B", a.B, 16), detail::check_pointer(kOp, "D", a.D, 16),
                   detail::check_leading_dim(kOp, "lda", a.lda, "K", a.K, a.a_dtype),
                   detail::check_leading_dim(kOp, "ldb", a.ldb, "K", a.K, a.b_dtype),
                   detail::check_leading_dim(kOp, "ldd", a.ldd, "N", a.N, a.d_dtype)}) {
    if (!s.ok()) return s;
  }
  if (a.epilogue.residual != nullptr) {
    for (Status s : {detail::check_pointer(kOp, "epilogue.residual", a.epilogue.residual, 16),
                     detail::check_leading_dim(kOp, "epilogue.ldc", a.epilogue.ldc, "N", a.N, a.d_dtype)}) {
      if (!s.ok()) return s;
    }
  }
  return Status::success();
}

// D must not overlap A, B, vectors, reduction outputs or the workspace; C may be D exactly.
Status check_aliasing(const GemmArgs& a, bool empty) {
  ByteRanges inputs, outputs;
  if (Status s = check_vectors(a, empty, &inputs, &outputs); !s.ok()) return s;
  if (!empty) {
    ByteRange A, B, D;
    for (Status s : {detail::matrix_range(kOp, "A", a.A, a.M, a.K, a.lda, dtype_bytes(a.a_dtype), &A),
                     detail::matrix_range(kOp, "B", a.B, a.N, a.K, a.ldb, dtype_bytes(a.b_dtype), &B),
                     detail::matrix_range(kOp, "D", a.D, a.M, a.N, a.ldd, dtype_bytes(a.d_dtype), &D)}) {
      if (!s.ok()) return s;
    }
    inputs.push_back(A);
    inputs.push_back(B);
    outputs.push_back(D);
    if (a.epilogue.residual != nullptr) {
      ByteRange C;
      if (Status s = detail::matrix_range(kOp, "C (residual)", a.epilogue.residual, a.M, a.N, a.epilogue.ldc,
                                          dtype_bytes(a.d_dtype), &C);
          !s.ok()) {
        return s;
      }
      const bool in_place = a.epilogue.residual == a.D && a.epilogue.ldc == a.ldd;
      if (!in_place && detail::overlaps(C, D)) {
        return invalid("C (residual) overlaps D without being D itself (same pointer and leading dimension)");
      }
      if (!in_place) inputs.push_back(C);
    }
  }
  if (a.workspace != nullptr && a.workspace_bytes > 0) {
    ByteRange W;
    if (Status s = detail::bytes_range(kOp, "the workspace", a.workspace, a.workspace_bytes, &W); !s.ok()) return s;
    outputs.push_back(W);
  }
  return detail::check_disjoint(kOp, outputs, inputs);
}

}  // namespace

Status validate_gemm_args(const GemmArgs& args) {
  if (Status s = check_sizes_and_types(args); !s.ok()) return s;
  if (Status s = check_col_bias_dtype(args); !s.ok()) return s;
  if (Status s = check_epilogue_values(args.epilogue); !s.ok()) return s;
  const bool empty = args.M == 0 || args.N == 0;
  if (!empty) {
    if (Status s = check_matrices(args); !s.ok()) return s;
  }
  return check_aliasing(args, empty);
}

}  // namespace epifuse

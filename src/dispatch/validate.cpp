// validate_gemm_args: every rule of include/epifuse/gemm.hpp, checked on the host before any
// launch, with a message naming the offending argument and its value.
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "dispatch/byte_ranges.hpp"
#include "epifuse/gemm.hpp"

namespace epifuse {
namespace {

using detail::aligned;
using detail::ByteRange;
using detail::matrix_range;
using detail::overlaps;
using detail::vector_range;

std::string num(std::int64_t v) { return std::to_string(v); }

bool supported_dtypes(DType in, DType out) {
  if (in == DType::kBF16) return out == DType::kBF16 || out == DType::kFP32;
  if (in == DType::kFP16) return out == DType::kFP16 || out == DType::kFP32;
  return false;
}

Status invalid(const std::string& message) { return Status::invalid_argument("gemm: " + message); }

Status check_leading_dim(const char* name, std::int64_t ld, const char* min_name, std::int64_t min,
                         std::size_t elem_bytes) {
  if (ld < min) return invalid(std::string(name) + " (" + num(ld) + ") must be >= " + min_name + " (" + num(min) + ")");
  if ((ld * static_cast<std::int64_t>(elem_bytes)) % 16 != 0) {
    return invalid(std::string(name) + " (" + num(ld) + ") must be a multiple of " + num(16 / elem_bytes) +
                   " elements (16 bytes, a TMA stride rule)");
  }
  return Status::success();
}

Status check_matrix_pointer(const char* name, const void* ptr) {
  if (ptr == nullptr) return invalid(std::string(name) + " is null");
  if (!aligned(ptr, 16)) return invalid(std::string(name) + " must be 16-byte aligned (TMA)");
  return Status::success();
}

Status check_shapes(const GemmArgs& a) {
  constexpr std::int64_t kMax = std::numeric_limits<std::int32_t>::max();
  const std::pair<const char*, std::int64_t> sizes[] = {{"M", a.M}, {"N", a.N}, {"K", a.K}};
  for (const auto& [name, value] : sizes) {
    if (value < 0) return invalid(std::string(name) + " must be >= 0, got " + num(value));
    if (value > kMax) return invalid(std::string(name) + " must be < 2^31, got " + num(value));
  }
  if (!supported_dtypes(a.input_dtype, a.output_dtype)) {
    return Status::not_supported(std::string("gemm: input ") + to_string(a.input_dtype) + " with output " +
                                 to_string(a.output_dtype) +
                                 " is not compiled; supported: bf16->bf16, bf16->fp32, fp16->fp16, fp16->fp32");
  }
  return Status::success();
}

Status check_operands(const GemmArgs& a) {
  const std::size_t in_bytes = dtype_bytes(a.input_dtype);
  const std::size_t out_bytes = dtype_bytes(a.output_dtype);
  if (a.K == 0) return invalid("K must be >= 1 when M and N are not 0");
  if (a.K % static_cast<std::int64_t>(16 / in_bytes) != 0) {
    return invalid("K (" + num(a.K) + ") must be a multiple of " + num(16 / in_bytes) + " (16-byte rows for TMA)");
  }
  if ((a.N * static_cast<std::int64_t>(out_bytes)) % 16 != 0) {
    return invalid("N (" + num(a.N) + ") must be a multiple of " + num(16 / out_bytes) + " for " +
                   to_string(a.output_dtype) + " output (16-byte rows for TMA)");
  }
  for (Status s : {check_matrix_pointer("A", a.A), check_matrix_pointer("B", a.B), check_matrix_pointer("D", a.D),
                   check_leading_dim("lda", a.lda, "K", a.K, in_bytes),
                   check_leading_dim("ldb", a.ldb, "K", a.K, in_bytes),
                   check_leading_dim("ldd", a.ldd, "N", a.N, out_bytes)}) {
    if (!s.ok()) return s;
  }
  if (a.epilogue.residual != nullptr) {
    for (Status s : {check_matrix_pointer("epilogue.residual", a.epilogue.residual),
                     check_leading_dim("epilogue.ldc", a.epilogue.ldc, "N", a.N, out_bytes)}) {
      if (!s.ok()) return s;
    }
  }
  return Status::success();
}

Status check_epilogue_values(const Epilogue& e) {
  if (e.activation == Activation::kClamp && !(e.clamp_lo <= e.clamp_hi)) {
    return invalid("clamp_lo (" + std::to_string(e.clamp_lo) + ") must be <= clamp_hi (" +
                   std::to_string(e.clamp_hi) + ")");
  }
  const int kind = static_cast<int>(e.activation);
  if (kind < 0 || kind >= kActivationCount) return invalid("activation " + num(kind) + " is not an Activation");
  const int order = static_cast<int>(e.residual_order);
  if (order != static_cast<int>(ResidualOrder::kAfterActivation) &&
      order != static_cast<int>(ResidualOrder::kBeforeActivation)) {
    return invalid("residual_order " + num(order) + " is not a ResidualOrder");
  }
  return Status::success();
}

// D must not overlap A, B, vectors or reduction outputs; C may be D exactly; outputs are disjoint.
Status check_aliasing(const GemmArgs& a) {
  const Epilogue& e = a.epilogue;
  const std::size_t in_bytes = dtype_bytes(a.input_dtype);
  const std::size_t out_bytes = dtype_bytes(a.output_dtype);
  const ByteRange d = matrix_range("D", a.D, a.M, a.N, a.ldd, out_bytes);

  std::vector<ByteRange> inputs = {matrix_range("A", a.A, a.M, a.K, a.lda, in_bytes),
                                   matrix_range("B", a.B, a.N, a.K, a.ldb, in_bytes)};
  const std::pair<const char*, const float*> row_inputs[] = {{"row_scale", e.row_scale}, {"row_bias", e.row_bias}};
  const std::pair<const char*, const float*> col_inputs[] = {{"col_scale", e.col_scale}, {"col_bias", e.col_bias}};
  for (const auto& [name, ptr] : row_inputs) {
    if (ptr) inputs.push_back(vector_range(name, ptr, a.M));
  }
  for (const auto& [name, ptr] : col_inputs) {
    if (ptr) inputs.push_back(vector_range(name, ptr, a.N));
  }

  std::vector<ByteRange> outputs = {d};
  const std::pair<const char*, float*> row_outputs[] = {{"row_sum", e.row_sum}, {"row_amax", e.row_amax}};
  const std::pair<const char*, float*> col_outputs[] = {{"col_sum", e.col_sum}, {"col_amax", e.col_amax}};
  for (const auto& [name, ptr] : row_outputs) {
    if (ptr) outputs.push_back(vector_range(name, ptr, a.M));
  }
  for (const auto& [name, ptr] : col_outputs) {
    if (ptr) outputs.push_back(vector_range(name, ptr, a.N));
  }
  if (e.amax) outputs.push_back(vector_range("amax", e.amax, 1));

  if (e.residual != nullptr) {
    const ByteRange c = matrix_range("C (residual)", e.residual, a.M, a.N, e.ldc, out_bytes);
    const bool in_place = e.residual == a.D && e.ldc == a.ldd;
    if (!in_place && overlaps(c, d)) {
      return invalid("C (residual) overlaps D without being D itself (same pointer and leading dimension)");
    }
    if (!in_place) inputs.push_back(c);
  }

  for (std::size_t i = 0; i < outputs.size(); ++i) {
    const ByteRange& out = outputs[i];
    for (const ByteRange& in : inputs) {
      if (overlaps(out, in)) return invalid(std::string(out.name) + " overlaps " + in.name);
    }
    for (std::size_t j = i + 1; j < outputs.size(); ++j) {
      if (overlaps(out, outputs[j])) return invalid(std::string(out.name) + " overlaps " + outputs[j].name);
    }
  }
  return Status::success();
}

Status check_vector_pointers(const Epilogue& e) {
  const std::pair<const char*, const void*> vectors[] = {
      {"row_scale", e.row_scale}, {"col_scale", e.col_scale}, {"col_bias", e.col_bias}, {"row_bias", e.row_bias},
      {"row_sum", e.row_sum},     {"row_amax", e.row_amax},   {"col_sum", e.col_sum},   {"col_amax", e.col_amax},
      {"amax", e.amax}};
  for (const auto& [name, ptr] : vectors) {
    if (ptr != nullptr && !aligned(ptr, sizeof(float))) {
      return invalid(std::string("epilogue.") + name + " must be 4-byte aligned");
    }
  }
  return Status::success();
}

}  // namespace

Status validate_gemm_args(const GemmArgs& args) {
  if (Status s = check_shapes(args); !s.ok()) return s;
  if (Status s = check_epilogue_values(args.epilogue); !s.ok()) return s;
  if (args.M == 0 || args.N == 0) return Status::success();  // empty output: a no-op
  if (Status s = check_operands(args); !s.ok()) return s;
  if (Status s = check_vector_pointers(args.epilogue); !s.ok()) return s;
  return check_aliasing(args);
}

}  // namespace epifuse

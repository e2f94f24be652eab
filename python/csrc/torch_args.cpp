#include "torch_args.hpp"

#include <c10/util/Exception.h>

namespace epifuse::torch_ops {

DType epifuse_dtype(at::ScalarType type, const char* op, const char* what) {
  switch (type) {
    case at::kBFloat16: return DType::kBF16;
    case at::kHalf: return DType::kFP16;
    case at::kFloat: return DType::kFP32;
    default: break;
  }
  TORCH_CHECK_TYPE(false, op, ": ", what, " has dtype ", type, "; epifuse takes bfloat16, float16 or float32");
}

void check_on_cuda(const at::Tensor& t, const char* op, const char* what) {
  TORCH_CHECK_VALUE(t.is_cuda(), op, ": ", what, " is on ", t.device(), "; epifuse runs on a CUDA device");
}

void check_device(const at::Tensor& t, const c10::Device& device, const char* op, const char* what) {
  TORCH_CHECK_VALUE(t.device() == device, op, ": ", what, " is on ", t.device(), " but the call runs on ", device,
                    "; every tensor must be on the same CUDA device");
}

RowMajorView row_major_view(const at::Tensor& t, const char* op, const char* what) {
  TORCH_CHECK_VALUE(t.dim() >= 1, op, ": ", what, " must have at least one dimension");
  const std::int64_t cols = t.size(-1);
  std::int64_t rows = 1;
  for (std::int64_t d = 0; d + 1 < t.dim(); ++d) rows *= t.size(d);

  // Leading dimensions collapse when each steps over whole rows of the next: the view() rule.
  std::int64_t ld = cols;
  bool readable = cols <= 1 || t.stride(-1) == 1;
  if (readable && rows > 1) {
    std::int64_t expected = -1;
    for (std::int64_t d = t.dim() - 2; d >= 0; --d) {
      if (t.size(d) == 1) continue;
      if (expected < 0) {
        ld = t.stride(d);
      } else if (t.stride(d) != expected) {
        readable = false;
        break;
      }
      expected = t.stride(d) * t.size(d);
    }
  }
  TORCH_CHECK_VALUE(readable, op, ": ", what, " with sizes ", t.sizes(), " and strides ", t.strides(),
                    " is not a row-major matrix view (unit stride along the last dimension, leading "
                    "dimensions collapsible); pass .contiguous()");
  return {t.data_ptr(), rows, cols, ld, epifuse_dtype(t.scalar_type(), op, what)};
}

void check_vector(const at::Tensor& bias, std::int64_t n, const char* op, const char* what) {
  TORCH_CHECK_VALUE(bias.dim() == 1 && bias.size(0) == n, op, ": ", what, " must have shape [", n, "], not ",
                    bias.sizes());
  TORCH_CHECK_TYPE(at::isFloatingType(bias.scalar_type()), op, ": ", what, " has dtype ", bias.scalar_type(),
                   "; it must be a floating-point tensor");
}

at::Tensor fp32_vector(const at::Tensor& bias, std::int64_t n, const char* op, const char* what) {
  check_vector(bias, n, op, what);
  return bias.to(at::kFloat).contiguous();
}

void raise_if_error(const Status& status, const char* op) {
  switch (status.code()) {
    case StatusCode::kOk: return;
    case StatusCode::kInvalidArgument: TORCH_CHECK_VALUE(false, op, ": ", status.to_string());
    case StatusCode::kNotSupported: TORCH_CHECK_NOT_IMPLEMENTED(false, op, ": ", status.to_string());
    default: TORCH_CHECK(false, op, ": ", status.to_string());
  }
}

}  // namespace epifuse::torch_ops

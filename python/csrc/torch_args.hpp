// Tensors as the C++ API reads them: the checks that only a tensor can answer (device, dtype, a
// row-major view), then raw pointers and strides. Every other rule is the C++ API's own, reported
// through its Status.
#pragma once

#include <cstdint>
#include <optional>

#include <ATen/core/Tensor.h>

#include "epifuse/status.hpp"
#include "epifuse/types.hpp"

namespace epifuse::torch_ops {

// A tensor [..., cols] read as a rows × cols row-major matrix with row stride ld (elements).
struct RowMajorView {
  const void* data = nullptr;
  std::int64_t rows = 0, cols = 0, ld = 0;
  DType dtype = DType::kBF16;
};

// bf16, fp16 or fp32; any other dtype raises TypeError naming `what`.
DType epifuse_dtype(at::ScalarType type, const char* op, const char* what);

// Raises ValueError unless `t` is on a CUDA device.
void check_on_cuda(const at::Tensor& t, const char* op, const char* what);

// Raises ValueError unless `t` is on `device` (a CUDA device).
void check_device(const at::Tensor& t, const c10::Device& device, const char* op, const char* what);

// `t` [..., cols] as rows × cols, leading dimensions collapsed. Raises ValueError when the layout
// cannot be read that way (the last dimension strided, leading dimensions not collapsible).
RowMajorView row_major_view(const at::Tensor& t, const char* op, const char* what);

// Checks that a bias is a 1-D floating-point tensor of `n` values, converting nothing.
void check_vector(const at::Tensor& bias, std::int64_t n, const char* op, const char* what);

// An fp32 contiguous 1-D copy of a bias (no copy when it already is one), checked to hold `n`.
at::Tensor fp32_vector(const at::Tensor& bias, std::int64_t n, const char* op, const char* what);

// Raises the Python exception that fits the status: ValueError for an invalid argument,
// NotImplementedError for an unsupported one, RuntimeError otherwise.
void raise_if_error(const Status& status, const char* op);

}  // namespace epifuse::torch_ops

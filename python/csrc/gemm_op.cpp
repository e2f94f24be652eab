// epifuse::gemm for PyTorch: y = act(alpha · x·Wᵀ + bias) + beta · residual, on x's CUDA device and
// the current stream.
#include "ops.hpp"

#include <string>

#include <ATen/ATen.h>
#include <ATen/cuda/CUDAContext.h>
#include <c10/cuda/CUDAGuard.h>

#include "epifuse/gemm.hpp"
#include "torch_args.hpp"

namespace epifuse::torch_ops {
namespace {

constexpr const char* kOp = "epifuse.gemm";

// The activations the op takes by name; clamp needs bounds the op has no arguments for.
Activation parse_activation(std::string_view name) {
  for (int i = 0; i < kActivationCount; ++i) {
    const auto a = static_cast<Activation>(i);
    if (a != Activation::kClamp && name == to_string(a)) return a;
  }
  TORCH_CHECK_VALUE(false, kOp, ": unknown activation '", std::string(name),
                    "'; one of identity, relu, gelu_tanh, gelu_erf, silu, sigmoid, tanh, hardswish, leaky_relu");
}

}  // namespace

at::Tensor gemm(const at::Tensor& x, const at::Tensor& weight, const std::optional<at::Tensor>& bias,
                std::string_view activation, double alpha, const std::optional<at::Tensor>& residual, double beta,
                std::optional<at::ScalarType> out_dtype) {
  const c10::Device device = x.device();
  check_on_cuda(x, kOp, "x");
  check_device(weight, device, kOp, "weight");
  TORCH_CHECK_VALUE(weight.dim() == 2, kOp, ": weight must be 2-D [out_features, in_features], not ", weight.sizes());
  const RowMajorView a = row_major_view(x, kOp, "x");
  const RowMajorView b = row_major_view(weight, kOp, "weight");
  TORCH_CHECK_VALUE(a.cols == b.cols, kOp, ": x has ", a.cols, " features but weight has in_features ", b.cols);

  std::vector<std::int64_t> out_sizes(x.sizes().begin(), x.sizes().end());
  out_sizes.back() = b.rows;
  const at::ScalarType out_type = out_dtype.value_or(x.scalar_type());
  at::Tensor out = at::empty(out_sizes, x.options().dtype(out_type));

  GemmArgs args;
  args.M = a.rows;
  args.N = b.rows;
  args.K = a.cols;
  args.a_dtype = a.dtype;
  args.b_dtype = b.dtype;
  args.d_dtype = epifuse_dtype(out_type, kOp, "out_dtype");
  args.A = a.data;
  args.lda = a.ld;
  args.B = b.data;
  args.ldb = b.ld;
  args.D = out.data_ptr();
  args.ldd = b.rows;
  args.epilogue.alpha = static_cast<float>(alpha);
  args.epilogue.activation = parse_activation(activation);

  if (bias) {
    check_device(*bias, device, kOp, "bias");
    check_vector(*bias, b.rows, kOp, "bias");
  }
  if (residual) {
    check_device(*residual, device, kOp, "residual");
    TORCH_CHECK_VALUE(residual->sizes() == out.sizes(), kOp, ": residual must have the output's shape ", out.sizes(),
                      ", not ", residual->sizes());
    TORCH_CHECK_TYPE(residual->scalar_type() == out_type, kOp, ": residual has dtype ", residual->scalar_type(),
                     " but the output is ", out_type);
    const RowMajorView c = row_major_view(*residual, kOp, "residual");
    args.epilogue.residual = c.data;
    args.epilogue.ldc = c.ld;
    args.epilogue.beta = static_cast<float>(beta);
  }

  // The C++ rules before the bias is attached: a call they reject launches nothing, not even the
  // bias's conversion. A bias in the output's 16-bit type (a bf16 or fp16 nn.Linear's) is passed
  // as it is; any other is converted to a fresh fp32 tensor. Either meets the bias's own rules.
  raise_if_error(validate_gemm_args(args), kOp);
  at::Tensor bias_operand;
  if (bias) {
    if (bias->scalar_type() == out_type && dtype_bytes(args.d_dtype) == 2) {
      bias_operand = bias->contiguous();
      args.epilogue.col_bias_dtype = args.d_dtype;
    } else {
      bias_operand = fp32_vector(*bias, b.rows, kOp, "bias");
    }
    args.epilogue.col_bias = bias_operand.data_ptr();
  }

  const c10::cuda::CUDAGuard guard(device);
  const cudaStream_t stream = at::cuda::getCurrentCUDAStream(device.index()).stream();
  std::size_t workspace_bytes = 0;
  raise_if_error(gemm_workspace_size(args, stream, &workspace_bytes), kOp);
  at::Tensor workspace;
  if (workspace_bytes > 0) {
    workspace = at::empty({static_cast<std::int64_t>(workspace_bytes)}, x.options().dtype(at::kByte));
    args.workspace = workspace.data_ptr();
    args.workspace_bytes = workspace_bytes;
  }
  raise_if_error(epifuse::gemm(args, stream), kOp);
  return out;
}

}  // namespace epifuse::torch_ops

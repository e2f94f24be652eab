// epifuse::gated_mlp for PyTorch: out = scale · act(x·Wgᵀ + bg) ⊙ (x·Wuᵀ + bu) from a packed gate/up
// weight, on x's CUDA device and the current stream.
#include "ops.hpp"

#include <cmath>
#include <string>

#include <ATen/ATen.h>
#include <ATen/cuda/CUDAContext.h>
#include <c10/cuda/CUDAGuard.h>

#include "epifuse/gated_mlp.hpp"
#include "torch_args.hpp"

namespace epifuse::torch_ops {
namespace {

constexpr const char* kOp = "epifuse.gated_mlp";

}  // namespace

GatedActivation parse_gated_activation(std::string_view name, const char* op) {
  for (const GatedActivation a : {GatedActivation::kSwiGLU, GatedActivation::kGeGLUTanh, GatedActivation::kGeGLUErf,
                                  GatedActivation::kReGLU}) {
    if (name == to_string(a)) return a;
  }
  TORCH_CHECK_VALUE(false, op, ": unknown activation '", std::string(name),
                    "'; one of swiglu, geglu_tanh, geglu_erf, reglu");
}

PackedGateUp packed_gate_up(const at::Tensor& packed_weight, const std::optional<at::Tensor>& packed_bias,
                            std::int64_t layout, const char* op) {
  TORCH_CHECK_VALUE(packed_weight.dim() == 2 && packed_weight.size(0) % 2 == 0, op,
                    ": the packed weight must be 2-D [2N, K], not ", packed_weight.sizes());
  const RowMajorView w = row_major_view(packed_weight, op, "packed weight");
  PackedGateUp packed;
  packed.weight = w.data;
  packed.ld = w.ld;
  packed.N = w.rows / 2;
  packed.K = w.cols;
  packed.dtype = w.dtype;
  packed.layout = static_cast<GateUpLayout>(static_cast<std::uint32_t>(layout));
  if (packed_bias) {
    check_device(*packed_bias, packed_weight.device(), op, "packed bias");
    check_vector(*packed_bias, w.rows, op, "packed bias");
  }
  return packed;
}

void attach_packed_bias(const std::optional<at::Tensor>& packed_bias, const char* op, PackedGateUp* packed,
                        at::Tensor* bias32) {
  if (!packed_bias) return;
  *bias32 = fp32_vector(*packed_bias, 2 * packed->N, op, "packed bias");
  packed->bias = bias32->data_ptr<float>();
}

at::Tensor gated_mlp(const at::Tensor& x, const at::Tensor& packed_weight, const std::optional<at::Tensor>& packed_bias,
                     std::int64_t layout, std::string_view activation, std::optional<double> limit, double scale) {
  const c10::Device device = x.device();
  check_on_cuda(x, kOp, "x");
  check_device(packed_weight, device, kOp, "packed weight");
  const RowMajorView in = row_major_view(x, kOp, "x");

  GatedMlpArgs args;
  args.w = packed_gate_up(packed_weight, packed_bias, layout, kOp);
  TORCH_CHECK_VALUE(in.cols == args.w.K, kOp, ": x has ", in.cols, " features but the packed weight has K = ", args.w.K);
  std::vector<std::int64_t> out_sizes(x.sizes().begin(), x.sizes().end());
  out_sizes.back() = args.w.N;
  at::Tensor out = at::empty(out_sizes, x.options());

  args.M = in.rows;
  args.N = args.w.N;
  args.x_dtype = in.dtype;
  args.x = in.data;
  args.ldx = in.ld;
  args.out_dtype = in.dtype;
  args.out = out.data_ptr();
  args.ldo = args.w.N;
  args.activation = parse_gated_activation(activation, kOp);
  if (limit) args.limit = static_cast<float>(*limit);
  args.scale = static_cast<float>(scale);

  // The C++ rules before the bias is attached: a call they reject launches nothing, not even the
  // bias's conversion. A converted bias is a fresh fp32 tensor, which meets the bias's own rules.
  raise_if_error(validate_gated_mlp_args(args), kOp);
  at::Tensor bias32;
  attach_packed_bias(packed_bias, kOp, &args.w, &bias32);

  const c10::cuda::CUDAGuard guard(device);
  const cudaStream_t stream = at::cuda::getCurrentCUDAStream(device.index()).stream();
  std::size_t workspace_bytes = 0;
  raise_if_error(gated_mlp_workspace_size(args, stream, &workspace_bytes), kOp);
  at::Tensor workspace;
  if (workspace_bytes > 0) {
    workspace = at::empty({static_cast<std::int64_t>(workspace_bytes)}, x.options().dtype(at::kByte));
    args.workspace = workspace.data_ptr();
    args.workspace_bytes = workspace_bytes;
  }
  raise_if_error(epifuse::gated_mlp(args, stream), kOp);
  return out;
}

}  // namespace epifuse::torch_ops

// epifuse::grouped_gated_mlp for PyTorch: every expert's fused gated MLP over its rows of x (rows
// grouped by expert), the expert offsets read on the device, on x's CUDA device and the current
// stream.
#include "ops.hpp"

#include <string>

#include <ATen/ATen.h>
#include <ATen/cuda/CUDAContext.h>
#include <c10/cuda/CUDAGuard.h>

#include "epifuse/grouped_gated_mlp.hpp"
#include "torch_args.hpp"

namespace epifuse::torch_ops {
namespace {

constexpr const char* kOp = "epifuse.grouped_gated_mlp";

}  // namespace

at::Tensor grouped_gated_mlp(const at::Tensor& x, const at::Tensor& packed_weights,
                             const std::optional<at::Tensor>& packed_biases, const at::Tensor& expert_offsets,
                             std::int64_t layout, std::string_view activation, std::optional<double> limit,
                             double scale, std::int64_t max_expert_rows) {
  const c10::Device device = x.device();
  check_on_cuda(x, kOp, "x");
  check_device(packed_weights, device, kOp, "packed weights");
  check_device(expert_offsets, device, kOp, "expert_offsets");
  TORCH_CHECK_VALUE(x.dim() == 2, kOp, ": x must be 2-D [T, K] (rows grouped by expert), not ", x.sizes());
  TORCH_CHECK_VALUE(packed_weights.dim() == 3 && packed_weights.size(1) % 2 == 0 && packed_weights.is_contiguous(),
                    kOp, ": the packed weights must be a contiguous [E, 2N, K], not ", packed_weights.sizes());
  const std::int64_t experts = packed_weights.size(0);
  // Before packed_weights[0]: indexing an empty stack would raise torch's IndexError, not this.
  TORCH_CHECK_VALUE(experts >= 1, kOp, ": the packed weights hold no expert (E = 0); give at least one");
  TORCH_CHECK_VALUE(expert_offsets.dim() == 1 && expert_offsets.size(0) == experts + 1 &&
                        expert_offsets.scalar_type() == at::kInt && expert_offsets.is_contiguous(),
                    kOp, ": expert_offsets must be a contiguous int32 [E + 1] = [", experts + 1, "], not ",
                    expert_offsets.scalar_type(), " ", expert_offsets.sizes());
  std::optional<at::Tensor> first_bias;
  if (packed_biases) {
    check_device(*packed_biases, device, kOp, "packed biases");
    TORCH_CHECK_VALUE(packed_biases->dim() == 2 && packed_biases->size(0) == experts &&
                          packed_biases->size(1) == packed_weights.size(1) &&
                          packed_biases->scalar_type() == at::kFloat && packed_biases->is_contiguous(),
                      kOp, ": the packed biases must be a contiguous fp32 [E, 2N], not ", packed_biases->scalar_type(),
                      " ", packed_biases->sizes());
    first_bias = (*packed_biases)[0];
  }
  const RowMajorView in = row_major_view(x, kOp, "x");

  GroupedGatedMlpArgs args;
  GatedMlpArgs& g = args.gated;
  g.w = packed_gate_up(packed_weights[0], first_bias, layout, kOp);
  TORCH_CHECK_VALUE(in.cols == g.w.K, kOp, ": x has ", in.cols, " features but the packed weights have K = ", g.w.K);
  at::Tensor out = at::empty({in.rows, g.w.N}, x.options());
  g.M = in.rows;
  g.N = g.w.N;
  g.x_dtype = in.dtype;
  g.x = in.data;
  g.ldx = in.ld;
  g.out_dtype = in.dtype;
  g.out = out.data_ptr();
  g.ldo = g.w.N;
  g.activation = parse_gated_activation(activation, kOp);
  if (limit) g.limit = static_cast<float>(*limit);
  g.scale = static_cast<float>(scale);
  if (packed_biases) g.w.bias = packed_biases->data_ptr<float>();
  args.experts = experts;
  args.expert_offsets = expert_offsets.data_ptr<std::int32_t>();
  args.weight_stride = packed_weights.stride(0);
  args.bias_stride = packed_biases ? packed_biases->stride(0) : 0;
  args.max_expert_rows = max_expert_rows;
  raise_if_error(validate_grouped_gated_mlp_args(args), kOp);

  const c10::cuda::CUDAGuard guard(device);
  const cudaStream_t stream = at::cuda::getCurrentCUDAStream(device.index()).stream();
  std::size_t workspace_bytes = 0;
  raise_if_error(grouped_gated_mlp_workspace_size(args, stream, &workspace_bytes), kOp);
  at::Tensor workspace;
  if (workspace_bytes > 0) {
    workspace = at::empty({static_cast<std::int64_t>(workspace_bytes)}, x.options().dtype(at::kByte));
    g.workspace = workspace.data_ptr();
    g.workspace_bytes = workspace_bytes;
  }
  raise_if_error(epifuse::grouped_gated_mlp(args, stream), kOp);
  return out;
}

}  // namespace epifuse::torch_ops

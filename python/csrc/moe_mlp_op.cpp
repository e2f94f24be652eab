// epifuse::moe_mlp for PyTorch: a MoE layer's routed experts, from the router's top-k choice to
// the weighted sum (plus `add`), on x's CUDA device and the current stream.
#include "ops.hpp"

#include <ATen/ATen.h>
#include <ATen/cuda/CUDAContext.h>
#include <c10/cuda/CUDAGuard.h>

#include "epifuse/moe_mlp.hpp"
#include "torch_args.hpp"

namespace epifuse::torch_ops {
namespace {

constexpr const char* kOp = "epifuse.moe_mlp";

void check_routing(const at::Tensor& topk_ids, const at::Tensor& topk_weights, std::int64_t tokens) {
  TORCH_CHECK_VALUE(topk_ids.dim() == 2 && topk_ids.size(0) == tokens && topk_ids.is_contiguous(), kOp,
                    ": topk_ids must be a contiguous [T, k] = [", tokens, ", k], not ", topk_ids.sizes());
  TORCH_CHECK_TYPE(topk_ids.scalar_type() == at::kInt, kOp, ": topk_ids has dtype ", topk_ids.scalar_type(),
                   "; the op takes int32 (epifuse.moe_mlp converts int64)");
  TORCH_CHECK_VALUE(topk_weights.sizes() == topk_ids.sizes() && topk_weights.is_contiguous(), kOp,
                    ": topk_weights must be a contiguous ", topk_ids.sizes(), " like topk_ids, not ",
                    topk_weights.sizes());
  TORCH_CHECK_TYPE(topk_weights.scalar_type() == at::kFloat, kOp, ": topk_weights has dtype ",
                   topk_weights.scalar_type(), "; the op takes float32 (epifuse.moe_mlp converts bf16 and fp16)");
}

}  // namespace

at::Tensor moe_mlp(const at::Tensor& x, const at::Tensor& topk_ids, const at::Tensor& topk_weights,
                   const at::Tensor& gate_up, const at::Tensor& down, std::int64_t layout, std::string_view activation,
                   std::optional<double> limit, double scale, const std::optional<at::Tensor>& add) {
  const c10::Device device = x.device();
  check_on_cuda(x, kOp, "x");
  check_device(topk_ids, device, kOp, "topk_ids");
  check_device(topk_weights, device, kOp, "topk_weights");
  check_device(gate_up, device, kOp, "packed_gate_up");
  check_device(down, device, kOp, "down");
  TORCH_CHECK_VALUE(x.dim() == 2, kOp, ": x must be 2-D [T, K], not ", x.sizes());
  const RowMajorView in = row_major_view(x, kOp, "x");
  check_routing(topk_ids, topk_weights, in.rows);
  TORCH_CHECK_VALUE(gate_up.dim() == 3 && gate_up.size(1) % 2 == 0 && gate_up.is_contiguous(), kOp,
                    ": packed_gate_up must be a contiguous [E, 2N, K], not ", gate_up.sizes());
  const std::int64_t experts = gate_up.size(0);
  // Before gate_up[0]: indexing an empty stack would raise torch's IndexError, not this.
  TORCH_CHECK_VALUE(experts >= 1, kOp, ": packed_gate_up holds no expert (E = 0); give at least one");

  MoeMlpArgs args;
  args.gate_up = packed_gate_up(gate_up[0], std::nullopt, layout, kOp);
  const std::int64_t N = args.gate_up.N, K = args.gate_up.K;
  TORCH_CHECK_VALUE(in.cols == K, kOp, ": x has ", in.cols, " features but packed_gate_up has K = ", K);
  TORCH_CHECK_VALUE(
      down.dim() == 3 && down.size(0) == experts && down.size(1) == K && down.size(2) == N && down.is_contiguous(), kOp,
      ": down must be a contiguous [E, K, N] = [", experts, ", ", K, ", ", N, "], not ", down.sizes());
  // The C++ API has one dtype for the layer and no field for down's or add's: checked here.
  TORCH_CHECK_TYPE(down.scalar_type() == x.scalar_type(), kOp, ": down has dtype ", down.scalar_type(), " but x has ",
                   x.scalar_type());
  at::Tensor y = at::empty({in.rows, K}, x.options());
  if (add) {
    check_device(*add, device, kOp, "add");
    TORCH_CHECK_VALUE(add->sizes() == y.sizes(), kOp, ": add must have the output's shape ", y.sizes(), ", not ",
                      add->sizes());
    TORCH_CHECK_TYPE(add->scalar_type() == x.scalar_type(), kOp, ": add has dtype ", add->scalar_type(), " but x has ",
                     x.scalar_type());
  }
  // No tokens, nothing to write; the C++ rules would refuse the empty tensors' null data pointers.
  if (in.rows == 0) return y;

  args.tokens = in.rows;
  args.experts = experts;
  args.topk = topk_ids.size(1);
  args.dtype = in.dtype;
  args.x = in.data;
  args.ldx = in.ld;
  args.topk_ids = topk_ids.data_ptr<std::int32_t>();
  args.topk_weights = topk_weights.data_ptr<float>();
  args.gate_up_stride = gate_up.stride(0);
  args.down = down.data_ptr();
  args.down_stride = down.stride(0);
  args.activation = parse_gated_activation(activation, kOp);
  if (limit) args.limit = static_cast<float>(*limit);
  args.scale = static_cast<float>(scale);
  if (add) {
    const RowMajorView a = row_major_view(*add, kOp, "add");
    args.add = a.data;
    args.ld_add = a.ld;
  }
  args.y = y.data_ptr();
  args.ldy = K;
  raise_if_error(validate_moe_mlp_args(args), kOp);

  const c10::cuda::CUDAGuard guard(device);
  const cudaStream_t stream = at::cuda::getCurrentCUDAStream(device.index()).stream();
  std::size_t workspace_bytes = 0;
  raise_if_error(moe_mlp_workspace_size(args, stream, &workspace_bytes), kOp);
  at::Tensor workspace;
  if (workspace_bytes > 0) {
    workspace = at::empty({static_cast<std::int64_t>(workspace_bytes)}, x.options().dtype(at::kByte));
    args.workspace = workspace.data_ptr();
    args.workspace_bytes = workspace_bytes;
  }
  raise_if_error(epifuse::moe_mlp(args, stream), kOp);
  return y;
}

}  // namespace epifuse::torch_ops

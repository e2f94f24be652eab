// epifuse::grouped_gemm for PyTorch: every expert's GEMM over its rows of x (rows grouped by
// expert), the expert offsets read on the device, on x's CUDA device and the current stream.
#include "ops.hpp"

#include <ATen/ATen.h>
#include <ATen/cuda/CUDAContext.h>
#include <c10/cuda/CUDAGuard.h>

#include "epifuse/grouped_gemm.hpp"
#include "torch_args.hpp"

namespace epifuse::torch_ops {
namespace {

constexpr const char* kOp = "epifuse.grouped_gemm";

}  // namespace

at::Tensor grouped_gemm(const at::Tensor& x, const at::Tensor& weights, const at::Tensor& expert_offsets,
                        std::int64_t max_expert_rows) {
  const c10::Device device = x.device();
  check_on_cuda(x, kOp, "x");
  check_device(weights, device, kOp, "weights");
  check_device(expert_offsets, device, kOp, "expert_offsets");
  TORCH_CHECK_VALUE(x.dim() == 2, kOp, ": x must be 2-D [T, K] (rows grouped by expert), not ", x.sizes());
  TORCH_CHECK_VALUE(weights.dim() == 3 && weights.is_contiguous(), kOp,
                    ": the weights must be a contiguous [E, N, K], not ", weights.sizes());
  const std::int64_t experts = weights.size(0);
  // Before weights[0]: indexing an empty stack would raise torch's IndexError, not this.
  TORCH_CHECK_VALUE(experts >= 1, kOp, ": the weights hold no expert (E = 0); give at least one");
  TORCH_CHECK_VALUE(expert_offsets.dim() == 1 && expert_offsets.size(0) == experts + 1 &&
                        expert_offsets.scalar_type() == at::kInt && expert_offsets.is_contiguous(),
                    kOp, ": expert_offsets must be a contiguous int32 [E + 1] = [", experts + 1, "], not ",
                    expert_offsets.scalar_type(), " ", expert_offsets.sizes());
  const RowMajorView a = row_major_view(x, kOp, "x");
  const RowMajorView b = row_major_view(weights[0], kOp, "weights");
  TORCH_CHECK_VALUE(a.cols == b.cols, kOp, ": x has ", a.cols, " features but the weights have K = ", b.cols);
  at::Tensor out = at::empty({a.rows, b.rows}, x.options());

  GroupedGemmArgs args;
  GemmArgs& g = args.gemm;
  g.M = a.rows;
  g.N = b.rows;
  g.K = a.cols;
  g.a_dtype = a.dtype;
  g.b_dtype = b.dtype;
  g.d_dtype = a.dtype;
  g.A = a.data;
  g.lda = a.ld;
  g.B = b.data;
  g.ldb = b.ld;
  g.D = out.data_ptr();
  g.ldd = b.rows;
  args.experts = experts;
  args.expert_offsets = expert_offsets.data_ptr<std::int32_t>();
  args.weight_stride = weights.stride(0);
  args.max_expert_rows = max_expert_rows;
  raise_if_error(validate_grouped_gemm_args(args), kOp);

  const c10::cuda::CUDAGuard guard(device);
  const cudaStream_t stream = at::cuda::getCurrentCUDAStream(device.index()).stream();
  std::size_t workspace_bytes = 0;
  raise_if_error(grouped_gemm_workspace_size(args, stream, &workspace_bytes), kOp);
  at::Tensor workspace;
  if (workspace_bytes > 0) {
    workspace = at::empty({static_cast<std::int64_t>(workspace_bytes)}, x.options().dtype(at::kByte));
    g.workspace = workspace.data_ptr();
    g.workspace_bytes = workspace_bytes;
  }
  raise_if_error(epifuse::grouped_gemm(args, stream), kOp);
  return out;
}

}  // namespace epifuse::torch_ops

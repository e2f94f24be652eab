// Packing gate/up weights for epifuse::gated_mlp (layout: include/epifuse/packing/gate_up.hpp), and
// the inverse, on the weights' CUDA device and the current stream.
#include "ops.hpp"

#include <ATen/ATen.h>
#include <ATen/cuda/CUDAContext.h>
#include <c10/cuda/CUDAGuard.h>

#include "epifuse/packing/gate_up.hpp"
#include "torch_args.hpp"

namespace epifuse::torch_ops {

std::vector<at::Tensor> pack_gate_up(const at::Tensor& gate, const at::Tensor& up,
                                     const std::optional<at::Tensor>& gate_bias,
                                     const std::optional<at::Tensor>& up_bias) {
  constexpr const char* kOp = "epifuse.pack_gate_up";
  const c10::Device device = gate.device();
  check_on_cuda(gate, kOp, "gate");
  check_device(up, device, kOp, "up");
  TORCH_CHECK_VALUE(gate.dim() == 2 && gate.sizes() == up.sizes(), kOp,
                    ": gate and up must be 2-D [N, K] of one shape, not ", gate.sizes(), " and ", up.sizes());
  TORCH_CHECK_TYPE(gate.scalar_type() == up.scalar_type(), kOp, ": gate is ", gate.scalar_type(), " but up is ",
                   up.scalar_type());
  TORCH_CHECK_VALUE(gate_bias.has_value() == up_bias.has_value(), kOp, ": give both biases or neither");
  const RowMajorView g = row_major_view(gate, kOp, "gate");
  const RowMajorView u = row_major_view(up, kOp, "up");
  TORCH_CHECK_VALUE(g.ld == u.ld, kOp, ": gate and up must share a row stride (", g.ld, " vs ", u.ld,
                    "); pass .contiguous() copies");

  GateUpSource src;
  src.gate = g.data;
  src.up = u.data;
  src.ld = g.ld;
  src.N = g.rows;
  src.K = g.cols;
  src.dtype = g.dtype;
  at::Tensor gate_bias32, up_bias32, packed_bias;
  if (gate_bias) {
    check_device(*gate_bias, device, kOp, "gate_bias");
    check_device(*up_bias, device, kOp, "up_bias");
    gate_bias32 = fp32_vector(*gate_bias, g.rows, kOp, "gate_bias");
    up_bias32 = fp32_vector(*up_bias, g.rows, kOp, "up_bias");
    src.gate_bias = gate_bias32.data_ptr<float>();
    src.up_bias = up_bias32.data_ptr<float>();
    packed_bias = at::empty({2 * g.rows}, gate.options().dtype(at::kFloat));
  }
  at::Tensor packed_weight = at::empty({2 * g.rows, g.cols}, gate.options());

  const c10::cuda::CUDAGuard guard(device);
  PackedGateUp packed;
  raise_if_error(epifuse::pack_gate_up(src, packed_weight.data_ptr(),
                                       packed_bias.defined() ? packed_bias.data_ptr<float>() : nullptr, &packed,
                                       at::cuda::getCurrentCUDAStream(device.index()).stream()),
                 kOp);
  if (!packed_bias.defined()) return {packed_weight};
  return {packed_weight, packed_bias};
}

std::vector<at::Tensor> unpack_gate_up(const at::Tensor& packed_weight, const std::optional<at::Tensor>& packed_bias,
                                       std::int64_t layout) {
  constexpr const char* kOp = "epifuse.unpack_gate_up";
  const c10::Device device = packed_weight.device();
  check_on_cuda(packed_weight, kOp, "packed weight");
  PackedGateUp packed = packed_gate_up(packed_weight, packed_bias, layout, kOp);
  at::Tensor bias32;
  attach_packed_bias(packed_bias, kOp, &packed, &bias32);
  at::Tensor gate = at::empty({packed.N, packed.K}, packed_weight.options());
  at::Tensor up = at::empty({packed.N, packed.K}, packed_weight.options());
  at::Tensor gate_bias, up_bias;
  if (packed.bias) {
    gate_bias = at::empty({packed.N}, packed_weight.options().dtype(at::kFloat));
    up_bias = at::empty({packed.N}, packed_weight.options().dtype(at::kFloat));
  }
  const c10::cuda::CUDAGuard guard(device);
  raise_if_error(epifuse::unpack_gate_up(packed, gate.data_ptr(), up.data_ptr(),
                                         packed.bias ? gate_bias.data_ptr<float>() : nullptr,
                                         packed.bias ? up_bias.data_ptr<float>() : nullptr,
                                         at::cuda::getCurrentCUDAStream(device.index()).stream()),
                 kOp);
  if (!packed.bias) return {gate, up};
  return {gate, up, gate_bias, up_bias};
}

}  // namespace epifuse::torch_ops

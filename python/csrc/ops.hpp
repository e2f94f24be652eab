// The CUDA implementations of epifuse's PyTorch ops (schemas: registration.cpp).
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>
#include <vector>

#include <ATen/core/Tensor.h>

#include "epifuse/gated_mlp.hpp"
#include "epifuse/packing/gate_up.hpp"

namespace epifuse::torch_ops {

at::Tensor gemm(const at::Tensor& x, const at::Tensor& weight, const std::optional<at::Tensor>& bias,
                std::string_view activation, double alpha, const std::optional<at::Tensor>& residual, double beta,
                std::optional<at::ScalarType> out_dtype);

at::Tensor gated_mlp(const at::Tensor& x, const at::Tensor& packed_weight, const std::optional<at::Tensor>& packed_bias,
                     std::int64_t layout, std::string_view activation, std::optional<double> limit, double scale);

// x [T, K] with rows grouped by expert, packed_weights [E, 2N, K], packed_biases fp32 [E, 2N],
// expert_offsets int32 [E + 1] on the device; max_expert_rows as GroupedGatedMlpArgs takes it.
at::Tensor grouped_gated_mlp(const at::Tensor& x, const at::Tensor& packed_weights,
                             const std::optional<at::Tensor>& packed_biases, const at::Tensor& expert_offsets,
                             std::int64_t layout, std::string_view activation, std::optional<double> limit,
                             double scale, std::int64_t max_expert_rows);

// x [T, K] with rows grouped by expert, weights [E, N, K] (nn.Linear layout), expert_offsets int32
// [E + 1] on the device; max_expert_rows as GroupedGemmArgs takes it.
at::Tensor grouped_gemm(const at::Tensor& x, const at::Tensor& weights, const at::Tensor& expert_offsets,
                        std::int64_t max_expert_rows);

// x [T, K], topk_ids int32 and topk_weights fp32 [T, k], gate_up [E, 2N, K] packed per expert, down
// [E, K, N], add [T, K] or none; returns a fresh y [T, K].
at::Tensor moe_mlp(const at::Tensor& x, const at::Tensor& topk_ids, const at::Tensor& topk_weights,
                   const at::Tensor& gate_up, const at::Tensor& down, std::int64_t layout, std::string_view activation,
                   std::optional<double> limit, double scale, const std::optional<at::Tensor>& add);

// Returns {weight [2N, K]} or, with biases, {weight, bias [2N] fp32}.
std::vector<at::Tensor> pack_gate_up(const at::Tensor& gate, const at::Tensor& up,
                                     const std::optional<at::Tensor>& gate_bias,
                                     const std::optional<at::Tensor>& up_bias);

// Returns {gate, up} or, when the packed weight has a bias, {gate, up, gate_bias, up_bias}.
std::vector<at::Tensor> unpack_gate_up(const at::Tensor& packed_weight, const std::optional<at::Tensor>& packed_bias,
                                       std::int64_t layout);

// The packed weight the C++ API reads, from its tensors, without its bias (checked, not yet
// attached); raises on a tensor it cannot read.
PackedGateUp packed_gate_up(const at::Tensor& packed_weight, const std::optional<at::Tensor>& packed_bias,
                            std::int64_t layout, const char* op);

// The GatedActivation named `name` (to_string's spelling); raises naming `op` otherwise.
GatedActivation parse_gated_activation(std::string_view name, const char* op);

// Attaches the packed bias; one that is not fp32 is converted into *bias32, which must outlive the
// call that reads it. gated_mlp calls it after the C++ rules passed, so that a call they reject has
// launched no conversion; unpack_gate_up, whose C++ call checks its own rules, before that call.
void attach_packed_bias(const std::optional<at::Tensor>& packed_bias, const char* op, PackedGateUp* packed,
                        at::Tensor* bias32);

}  // namespace epifuse::torch_ops

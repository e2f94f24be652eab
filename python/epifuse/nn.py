"""Modules on epifuse's ops: a Linear with a fused epilogue and a gated MLP with gate/up packed.

Inference only, like the ops: parameters are created with requires_grad=False.
"""
import math
from typing import Optional

import torch
import torch.nn.functional as F

from epifuse import ops
from epifuse.mlp_op import mlp


def _bias_dtype(activation: str, weight_dtype: torch.dtype) -> torch.dtype:
    return weight_dtype if activation in ("identity", "relu", "gelu_tanh") else torch.float32


class Linear(torch.nn.Module):
    """y = act(alpha · x·Wᵀ + b) (+ beta · residual), one kernel. Weight [out, in] as nn.Linear's.
    The bias is kept in the weight's dtype where the activation is one cuBLASLt's epilogue computes
    (identity, relu, gelu_tanh: such a call may run cuBLASLt, which takes a 16-bit bias only; one
    with a residual runs epifuse's kernels, which widen it per call), in fp32 otherwise (epifuse's
    kernels add it in fp32 and read it as it is)."""

    def __init__(self, in_features: int, out_features: int, bias: bool = True, activation: str = "identity",
                 alpha: float = 1.0, *, device=None, dtype=torch.bfloat16):
        super().__init__()
        if activation not in ops.GEMM_ACTIVATIONS:
            raise ValueError(f"epifuse.nn.Linear: activation must be one of {ops.GEMM_ACTIVATIONS}, not {activation!r}")
        self.in_features, self.out_features = in_features, out_features
        self.activation, self.alpha = activation, alpha
        self.weight = torch.nn.Parameter(torch.empty(out_features, in_features, device=device, dtype=dtype),
                                         requires_grad=False)
        if bias:
            self.bias = torch.nn.Parameter(torch.empty(out_features, device=device, dtype=_bias_dtype(activation, dtype)),
                                           requires_grad=False)
        else:
            self.register_parameter("bias", None)
        self.reset_parameters()

    def reset_parameters(self) -> None:
        """nn.Linear's initialisation."""
        torch.nn.init.kaiming_uniform_(self.weight, a=math.sqrt(5))
        if self.bias is not None:
            bound = 1 / math.sqrt(self.in_features) if self.in_features > 0 else 0
            torch.nn.init.uniform_(self.bias, -bound, bound)

    @classmethod
    def from_linear(cls, linear: torch.nn.Linear, activation: str = "identity", alpha: float = 1.0) -> "Linear":
        """Shares `linear`'s weight (no copy), and its bias where that is in the dtype the class keeps;
        any other bias is copied to fp32."""
        module = cls.__new__(cls)
        torch.nn.Module.__init__(module)
        if activation not in ops.GEMM_ACTIVATIONS:
            raise ValueError(f"epifuse.nn.Linear: activation must be one of {ops.GEMM_ACTIVATIONS}, not {activation!r}")
        module.in_features, module.out_features = linear.in_features, linear.out_features
        module.activation, module.alpha = activation, alpha
        module.weight = torch.nn.Parameter(linear.weight.detach(), requires_grad=False)
        if linear.bias is not None:
            keeps = linear.bias.dtype == _bias_dtype(activation, linear.weight.dtype)
            bias = linear.bias.detach() if keeps else linear.bias.detach().float()  # never rounds it
            module.bias = torch.nn.Parameter(bias, requires_grad=False)
        else:
            module.register_parameter("bias", None)
        return module

    def forward(self, x: torch.Tensor, residual: Optional[torch.Tensor] = None, beta: float = 1.0) -> torch.Tensor:
        return ops.gemm(x, self.weight, self.bias, self.activation, self.alpha, residual, beta)

    def extra_repr(self) -> str:
        return (f"in_features={self.in_features}, out_features={self.out_features}, bias={self.bias is not None}, "
                f"activation={self.activation}, alpha={self.alpha}")


class GatedMLP(torch.nn.Module):
    """down_proj(scale · act(x·Wgᵀ + bg) ⊙ (x·Wuᵀ + bu)): gate and up in one fused kernel that
    writes only [..., intermediate_size]; the down projection is a plain GEMM (no epilogue to fuse).

    Holds the packed gate/up weight (`gate_up_weight` [2·intermediate, hidden], `gate_up_bias` fp32
    or None) and `down_proj` (an nn.Linear). load_state_dict also takes unpacked checkpoints and
    packs them: `gate_proj.weight` and `up_proj.weight` (Llama, Mistral, Qwen, Gemma), or a fused
    `gate_up_proj.weight` with gate first (Phi-3), with `.bias` entries alike.

    chunk_tokens (None: off) computes the MLP that many tokens at a time, so that at most
    [chunk_tokens, intermediate_size] of the intermediate exists at once (epifuse.mlp).
    """

    def __init__(self, hidden_size: int, intermediate_size: int, activation: str = "swiglu", bias: bool = False, *,
                 limit: Optional[float] = None, scale: float = 1.0, chunk_tokens: Optional[int] = None, device=None,
                 dtype=torch.bfloat16):
        super().__init__()
        _check_activation(activation)
        self.hidden_size, self.intermediate_size = hidden_size, intermediate_size
        self.activation, self.limit, self.scale, self.chunk_tokens = activation, limit, scale, chunk_tokens
        self.register_buffer("gate_up_weight",
                             torch.empty(2 * intermediate_size, hidden_size, device=device, dtype=dtype))
        self.register_buffer("gate_up_bias",
                             torch.empty(2 * intermediate_size, device=device, dtype=torch.float32) if bias else None)
        self.down_proj = torch.nn.Linear(intermediate_size, hidden_size, bias=bias, device=device, dtype=dtype)
        self.down_proj.requires_grad_(False)
        self.gate_up_layout = ops.GATE_UP_BLOCKS8

    @classmethod
    def from_packed(cls, packed: ops.PackedGateUp, down_proj: torch.nn.Linear, activation: str = "swiglu", *,
                    limit: Optional[float] = None, scale: float = 1.0,
                    chunk_tokens: Optional[int] = None) -> "GatedMLP":
        """Wraps an already packed weight and an existing down projection, copying neither."""
        module = cls.__new__(cls)
        torch.nn.Module.__init__(module)
        _check_activation(activation)
        module.hidden_size, module.intermediate_size = packed.K, packed.N
        module.activation, module.limit, module.scale, module.chunk_tokens = activation, limit, scale, chunk_tokens
        module.register_buffer("gate_up_weight", packed.weight)
        module.register_buffer("gate_up_bias", packed.bias)
        module.down_proj = down_proj
        module.gate_up_layout = packed.layout
        return module

    @property
    def packed(self) -> ops.PackedGateUp:
        return ops.PackedGateUp(self.gate_up_weight, self.gate_up_bias, self.gate_up_layout)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return mlp(x, self.packed, self.down_proj.weight, self.down_proj.bias, self.activation, self.limit,
                   self.scale, self.chunk_tokens)

    def _load_from_state_dict(self, state_dict, prefix, local_metadata, strict, missing_keys, unexpected_keys,
                              error_msgs):
        gate_key, up_key, fused_key = prefix + "gate_proj.weight", prefix + "up_proj.weight", prefix + "gate_up_proj.weight"
        if gate_key in state_dict or fused_key in state_dict:
            with torch.no_grad():
                if fused_key in state_dict:
                    fused = state_dict.pop(fused_key).to(self.gate_up_weight.device, self.gate_up_weight.dtype)
                    fused_bias = state_dict.pop(prefix + "gate_up_proj.bias", None)
                    packed = ops.pack_gate_up(gate_up=fused, gate_up_bias=self._on_device(fused_bias))
                else:
                    packed = ops.pack_gate_up(
                        self._on_device(state_dict.pop(gate_key), self.gate_up_weight.dtype),
                        self._on_device(state_dict.pop(up_key), self.gate_up_weight.dtype),
                        self._on_device(state_dict.pop(prefix + "gate_proj.bias", None)),
                        self._on_device(state_dict.pop(prefix + "up_proj.bias", None)))
            state_dict[prefix + "gate_up_weight"] = packed.weight
            if packed.bias is not None:
                state_dict[prefix + "gate_up_bias"] = packed.bias
        super()._load_from_state_dict(state_dict, prefix, local_metadata, strict, missing_keys, unexpected_keys,
                                      error_msgs)

    def _on_device(self, t: Optional[torch.Tensor], dtype=None) -> Optional[torch.Tensor]:
        if t is None:
            return None
        return t.to(self.gate_up_weight.device, dtype if dtype is not None else t.dtype)

    def extra_repr(self) -> str:
        return (f"hidden_size={self.hidden_size}, intermediate_size={self.intermediate_size}, "
                f"activation={self.activation}, bias={self.gate_up_bias is not None}, limit={self.limit}, "
                f"scale={self.scale}, chunk_tokens={self.chunk_tokens}")


def _check_activation(activation: str) -> None:
    if activation not in ops.GATED_ACTIVATIONS:
        raise ValueError(f"epifuse.nn.GatedMLP: activation must be one of {ops.GATED_ACTIVATIONS}, not {activation!r}")

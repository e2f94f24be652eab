"""The routed experts of a Hugging Face MoE block on epifuse.moe_mlp, and how patch() finds them.

transformers 5 keeps a MoE block's routed experts in one `*Experts` module (Mixtral, Qwen2-MoE,
DeepSeek-V3, ...): `gate_up_proj` [E, 2N, K] (gate rows first), `down_proj` [E, K, N], `act_fn`,
called as experts(hidden_states [T, K], top_k_index [T, k], top_k_weights [T, k]). MoeExperts
takes its place: the same call, one epifuse.moe_mlp. The gate/up weights are packed in place,
expert by expert, in the original parameter's storage (no second copy); unpatch unpacks them
back. The shared experts of Qwen2-MoE and DeepSeek-V3 are dense gated MLPs, which patch() swaps
on its own.
"""
from typing import Optional

import torch

from epifuse import ops


class MoeExperts(torch.nn.Module):
    """Routed experts: y[t] = Σ_j w[t,j] · down_e(act(gate_e x_t) ⊙ up_e x_t), e = top_k_index[t,j].

    `gate_up_proj` [E, 2N, K] holds each expert's packed gate/up weight (epifuse.pack_gate_up),
    `down_proj` [E, K, N] the down projections (nn.Linear layout). Expert ids outside [0, E)
    contribute nothing."""

    def __init__(self, gate_up_proj: torch.Tensor, down_proj: torch.Tensor, activation: str = "swiglu"):
        super().__init__()
        # Buffers over the given storage: inference only, as every epifuse op.
        self.register_buffer("gate_up_proj", gate_up_proj.detach())
        self.register_buffer("down_proj", down_proj.detach())
        self.activation = activation

    def forward(self, hidden_states: torch.Tensor, top_k_index: torch.Tensor, top_k_weights: torch.Tensor) -> torch.Tensor:
        return ops.moe_mlp(hidden_states, top_k_index, top_k_weights, self.gate_up_proj, self.down_proj,
                           self.activation)


def routed_experts(module: torch.nn.Module):
    """(gate_up_proj, down_proj, act_fn) of a module shaped as transformers' `*Experts`, else None
    (why_not says whether epifuse runs it)."""
    gate_up, down, act = (getattr(module, name, None) for name in ("gate_up_proj", "down_proj", "act_fn"))
    if not (isinstance(gate_up, torch.Tensor) and isinstance(down, torch.Tensor) and isinstance(act, torch.nn.Module)):
        return None
    if gate_up.dim() != 3 or down.dim() != 3:
        return None
    return gate_up, down, act


def why_not(module: torch.nn.Module, gate_up: torch.Tensor, down: torch.Tensor, activation: Optional[str]) -> Optional[str]:
    """Why epifuse cannot run these experts, or None."""
    if activation is None:
        return f"activation {type(module.act_fn).__name__} has no epifuse gated variant"
    layout = {"has_bias": False, "is_transposed": False, "has_gate": True, "is_concatenated": True}
    for attribute, expected in layout.items():
        if getattr(module, attribute, expected) != expected:
            return f"{attribute} is {getattr(module, attribute)}; epifuse takes concatenated [gate; up] without biases"
    if gate_up.device.type != "cuda":
        return f"weights on {gate_up.device}; epifuse runs on a CUDA device"
    if gate_up.dtype not in (torch.bfloat16, torch.float16) or down.dtype != gate_up.dtype:
        return f"weights are {gate_up.dtype} and {down.dtype}; epifuse's kernels take bfloat16 or float16"
    E, two_n, K = gate_up.shape
    if two_n % 16 or K % 8 or tuple(down.shape) != (E, K, two_n // 2):
        return f"gate_up_proj {list(gate_up.shape)} and down_proj {list(down.shape)} do not fit [E, 2N, K], [E, K, N] " \
               "with N and K multiples of 8"
    return None


@torch.no_grad()
def pack_in_place(gate_up: torch.Tensor) -> None:
    """[E, 2N, K] with gate rows first -> each expert packed (epifuse.pack_gate_up), same storage."""
    for e in range(gate_up.shape[0]):
        gate_up[e].copy_(ops.pack_gate_up(gate_up=gate_up[e]).weight)


@torch.no_grad()
def unpack_in_place(gate_up: torch.Tensor) -> None:
    """The inverse of pack_in_place."""
    for e in range(gate_up.shape[0]):
        gate, up, _, _ = ops.unpack_gate_up(ops.PackedGateUp(gate_up[e].clone()))
        gate_up[e].copy_(torch.cat([gate, up]))

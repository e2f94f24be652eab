"""epifuse's ops on torch tensors: a GEMM with a fused epilogue, the fused gated MLP, their
grouped (MoE experts) forms, and a whole MoE layer's routed experts.

Every op runs on its inputs' CUDA device and the current stream, allocates its output (and any
workspace) from torch's caching allocator, and is a torch.library custom op: it traces under
torch.compile(fullgraph=True) and records under torch.cuda.graph. Inference only: an input that
requires grad, with grad mode on, raises. Bad input raises before anything is launched: TypeError
for a dtype, ValueError for a shape, layout, device or any rule of the C++ API (its message),
NotImplementedError for what no compiled kernel serves.
"""
from dataclasses import dataclass
from typing import Optional, Tuple

import torch

# The packed layout the kernels read (include/epifuse/packing/gate_up.hpp: kGateUpBlocks8, v1).
GATE_UP_BLOCKS8 = 0xEF0B0801

GEMM_ACTIVATIONS = ("identity", "relu", "gelu_tanh", "gelu_erf", "silu", "sigmoid", "tanh", "hardswish",
                    "leaky_relu")
GATED_ACTIVATIONS = ("swiglu", "geglu_tanh", "geglu_erf", "reglu")


@dataclass(frozen=True)
class PackedGateUp:
    """A gate/up weight packed for gated_mlp: `weight` [2N, K] with gate and up rows interleaved in
    blocks of 8, an optional fp32 `bias` [2N] interleaved alike, and the `layout` tag the kernels
    check. Made by pack_gate_up; a weight packed otherwise is refused."""
    weight: torch.Tensor
    bias: Optional[torch.Tensor] = None
    layout: int = GATE_UP_BLOCKS8

    @property
    def N(self) -> int:
        return self.weight.shape[0] // 2

    @property
    def K(self) -> int:
        return self.weight.shape[1]


def gemm(x: torch.Tensor, weight: torch.Tensor, bias: Optional[torch.Tensor] = None,
         activation: str = "identity", alpha: float = 1.0, residual: Optional[torch.Tensor] = None,
         beta: float = 1.0, out_dtype: Optional[torch.dtype] = None) -> torch.Tensor:
    """y = act(alpha · x·weightᵀ + bias) + beta · residual, in one kernel.

    x [..., K] bf16 or fp16; weight [N, K] in nn.Linear layout, same dtype; bias [N] (any float
    dtype, added in fp32; one in the output's 16-bit dtype is read as it is, any other converted to
    fp32 per call); residual the output's shape and dtype; out_dtype x's dtype
    (default) or torch.float32. activation: one of GEMM_ACTIVATIONS (leaky_relu with slope 0.01).
    """
    return torch.ops.epifuse.gemm(x, weight, bias, activation, alpha, residual, beta, out_dtype)


def gated_mlp(x: torch.Tensor, packed: PackedGateUp, activation: str = "swiglu",
              limit: Optional[float] = None, scale: float = 1.0) -> torch.Tensor:
    """out = scale · act(x·Wgᵀ + bg) ⊙ (x·Wuᵀ + bu), one kernel, only [..., N] written.

    x [..., K], same dtype as the packed weight (bf16 or fp16). activation: one of
    GATED_ACTIVATIONS; `limit` clamps as gpt-oss's SwiGLU does (gate ≤ limit, |up| ≤ limit).
    """
    if not isinstance(packed, PackedGateUp):
        raise TypeError("epifuse.gated_mlp: `packed` must be a PackedGateUp from epifuse.pack_gate_up, "
                        f"not {type(packed).__name__}")
    return torch.ops.epifuse.gated_mlp(x, packed.weight, packed.bias, packed.layout, activation, limit, scale)


def grouped_gated_mlp(x: torch.Tensor, packed_weights: torch.Tensor, expert_offsets: torch.Tensor,
                      packed_biases: Optional[torch.Tensor] = None, activation: str = "swiglu",
                      limit: Optional[float] = None, scale: float = 1.0, max_expert_rows: int = 0) -> torch.Tensor:
    """Every expert's fused gated MLP in one launch: rows [offsets[e], offsets[e+1]) of x [T, K]
    (grouped by expert, as a MoE permute leaves them) through expert e's packed weight.

    packed_weights [E, 2N, K]: each expert's weight as pack_gate_up packs it (e.g.
    torch.stack([pack_gate_up(g, u).weight ...])); packed_biases fp32 [E, 2N] or None;
    expert_offsets int32 [E + 1] on x's device, read on the device only (no synchronisation, CUDA
    graphs follow the routing of each replay). Offsets out of range are clamped to a running
    maximum inside [0, T]; rows of no expert are left unwritten. Returns [T, N].

    max_expert_rows: optional, no expert has more rows than this (0: unknown). A MoE engine knows
    its token count bounds it; with at most 64 one kernel launch serves every expert. It only
    chooses kernels: an expert past a wrong bound is still computed, more slowly.
    """
    return torch.ops.epifuse.grouped_gated_mlp(x, packed_weights, packed_biases, expert_offsets, GATE_UP_BLOCKS8,
                                               activation, limit, scale, max_expert_rows)


def grouped_gemm(x: torch.Tensor, weights: torch.Tensor, expert_offsets: torch.Tensor,
                 max_expert_rows: int = 0) -> torch.Tensor:
    """Every expert's GEMM in one launch: out[r] = x[r]·weights[e]ᵀ, rounded once, for the rows r in
    [offsets[e], offsets[e+1]) of x [T, K] (grouped by expert, as a MoE permute leaves them).

    x bf16 (fp16 where its kernels are compiled; the table has bf16 only); weights [E, N, K]
    contiguous, x's dtype, each expert's in nn.Linear layout (a MoE down projection);
    expert_offsets int32 [E + 1] on x's device, read on the device only (no synchronisation, CUDA
    graphs follow the routing of each replay). Offsets out of range are clamped to a running
    maximum inside [0, T]; rows of no expert are left unwritten. Returns [T, N]. max_expert_rows
    as grouped_gated_mlp takes it.
    """
    return torch.ops.epifuse.grouped_gemm(x, weights, expert_offsets, max_expert_rows)


def moe_mlp(x: torch.Tensor, topk_ids: torch.Tensor, topk_weights: torch.Tensor, packed_gate_up: torch.Tensor,
            down: torch.Tensor, activation: str = "swiglu", limit: Optional[float] = None, scale: float = 1.0,
            add: Optional[torch.Tensor] = None) -> torch.Tensor:
    """A MoE layer's routed experts, router choice to output, on the device:

        y[t] = Σ_j topk_weights[t,j] · down[e](scale · act(x[t]·Wg[e]ᵀ) ⊙ (x[t]·Wu[e]ᵀ)) (+ add[t]),
               e = topk_ids[t,j]

    x [T, K] bf16 (fp16 where its kernels are compiled; the table has bf16 only). topk_ids [T, k]
    int32 or int64 (a Hugging Face router's; converted to int32 here, ids out of int32's range
    kept out of range); topk_weights [T, k] fp32, or bf16/fp16 (converted to fp32 here, exactly).
    packed_gate_up [E, 2N, K] contiguous: each expert's gate/up weight as pack_gate_up packs it
    (as grouped_gated_mlp takes them), no biases; down [E, K, N] contiguous (nn.Linear layout);
    add [T, K] or None (a shared expert's output or a residual, added before the one rounding).
    Every tensor on x's device, x's dtype for the weights and add. activation: one of
    GATED_ACTIVATIONS; limit and scale as gated_mlp's. Returns a new y [T, K].

    Expert ids outside [0, E) are dropped: that pair adds nothing to y. Sizes and routing stay on
    the device (a stable sort by expert, the grouped gate/up and down GEMMs, a weighted sum): no
    host synchronisation, so a call is capturable in a CUDA graph for a fixed T, each replay
    following the ids and weights then in its input tensors. Deterministic: each token's k rows
    are summed in fp32 in the order j = 0..k-1, no float atomics, so the same inputs give the same
    bits. The gated activations and each expert's output are rounded to x's dtype on the way (as
    an unfused layer rounds them); the sum and add are rounded once.
    """
    if topk_ids.dtype == torch.int64:
        topk_ids = topk_ids.clamp(-1, packed_gate_up.shape[0]).to(torch.int32)
    if topk_weights.dtype in (torch.bfloat16, torch.float16):
        topk_weights = topk_weights.to(torch.float32)
    return torch.ops.epifuse.moe_mlp(x, topk_ids, topk_weights, packed_gate_up, down, GATE_UP_BLOCKS8, activation,
                                     limit, scale, add)


def pack_gate_up(gate: Optional[torch.Tensor] = None, up: Optional[torch.Tensor] = None,
                 gate_bias: Optional[torch.Tensor] = None, up_bias: Optional[torch.Tensor] = None, *,
                 gate_up: Optional[torch.Tensor] = None, gate_up_bias: Optional[torch.Tensor] = None,
                 order: str = "gate_up") -> PackedGateUp:
    """Packs the gate and up weights ([N, K] each, nn.Linear layout) once, on their device.

    Either separate `gate` and `up` (Llama, Mistral, Qwen, Gemma checkpoints), or one fused
    `gate_up` [2N, K] (Phi-3's gate_up_proj) whose halves are in `order` "gate_up" or "up_gate".
    Biases are optional (both or neither) and are packed as fp32.
    """
    if gate_up is not None:
        if gate is not None or up is not None or gate_bias is not None or up_bias is not None:
            raise ValueError("epifuse.pack_gate_up: give gate and up, or gate_up, not both")
        if order not in ("gate_up", "up_gate"):
            raise ValueError(f"epifuse.pack_gate_up: order must be 'gate_up' or 'up_gate', not {order!r}")
        if gate_up.dim() != 2 or gate_up.shape[0] % 2:
            raise ValueError(f"epifuse.pack_gate_up: gate_up must be 2-D [2N, K], not {list(gate_up.shape)}")
        first, second = gate_up.chunk(2, dim=0)
        gate, up = (first, second) if order == "gate_up" else (second, first)
        if gate_up_bias is not None:
            first_bias, second_bias = gate_up_bias.chunk(2, dim=0)
            gate_bias, up_bias = (first_bias, second_bias) if order == "gate_up" else (second_bias, first_bias)
    elif gate is None or up is None:
        raise ValueError("epifuse.pack_gate_up: give gate and up, or gate_up")
    packed = torch.ops.epifuse.pack_gate_up(gate, up, gate_bias, up_bias)
    return PackedGateUp(packed[0], packed[1] if len(packed) > 1 else None)


def unpack_gate_up(packed: PackedGateUp) -> Tuple[torch.Tensor, torch.Tensor,
                                                  Optional[torch.Tensor], Optional[torch.Tensor]]:
    """The inverse of pack_gate_up: (gate, up, gate_bias, up_bias), biases fp32 or None."""
    parts = torch.ops.epifuse.unpack_gate_up(packed.weight, packed.bias, packed.layout)
    if len(parts) == 2:
        return parts[0], parts[1], None, None
    return parts[0], parts[1], parts[2], parts[3]

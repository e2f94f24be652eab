"""The whole gated MLP, down projection included, optionally in token chunks so that only
[chunk_tokens, N] of its intermediate exists at once.

One call holds the [M, N] intermediate and the [M, K] output together: 43 % of the activation
memory of Hugging Face's eager MLP (which holds gate, up and act(gate), each [M, N]). Chunks of
2048 tokens took the Llama-3 8B MLP at 4096 tokens to 26 % of eager's for 2 % more time on an
H200 (bench/results/torch/); that trade is the caller's, so chunking is off by default.

The chunk loop is one torch.library custom op: torch.compile sees a single opaque call (no loop
over a symbolic token count, no graph break), and CUDA graphs capture it like any other op.
"""
import math
from typing import Optional

import torch
import torch.nn.functional as F

from epifuse import ops


@torch.library.custom_op("epifuse::gated_mlp_down_chunked", mutates_args=())
def _gated_mlp_down_chunked(x: torch.Tensor, packed_weight: torch.Tensor, packed_bias: Optional[torch.Tensor],
                            layout: int, down_weight: torch.Tensor, down_bias: Optional[torch.Tensor],
                            activation: str, limit: Optional[float], scale: float, chunk_tokens: int) -> torch.Tensor:
    rows = x.reshape(-1, x.shape[-1])
    y = rows.new_empty((rows.shape[0], down_weight.shape[0]))
    down_t = down_weight.t()
    for first in range(0, rows.shape[0], chunk_tokens):
        last = min(first + chunk_tokens, rows.shape[0])
        h = torch.ops.epifuse.gated_mlp(rows[first:last], packed_weight, packed_bias, layout, activation, limit,
                                        scale)
        if down_bias is None:
            torch.mm(h, down_t, out=y[first:last])
        else:
            torch.addmm(down_bias, h, down_t, out=y[first:last])
        del h  # frees the chunk's intermediate before the next chunk allocates its own
    return y.view(*x.shape[:-1], down_weight.shape[0])


@_gated_mlp_down_chunked.register_fake
def _(x, packed_weight, packed_bias, layout, down_weight, down_bias, activation, limit, scale, chunk_tokens):
    torch._check(down_weight.dim() == 2 and down_weight.shape[1] * 2 == packed_weight.shape[0],
                 lambda: f"epifuse.mlp: down_weight must be [out_features, {packed_weight.shape[0] // 2}], "
                         f"not {list(down_weight.shape)}")
    return x.new_empty((*x.shape[:-1], down_weight.shape[0]))


def mlp(x: torch.Tensor, packed: ops.PackedGateUp, down_weight: torch.Tensor, down_bias: Optional[torch.Tensor] = None,
        activation: str = "swiglu", limit: Optional[float] = None, scale: float = 1.0,
        chunk_tokens: Optional[int] = None) -> torch.Tensor:
    """down(gated_mlp(x, packed, activation, limit, scale)): the fused gate/up kernel, then the
    down projection (F.linear: down_weight [out_features, N] in nn.Linear layout, down_bias
    [out_features] or None).

    chunk_tokens: None computes all of x's tokens in one pair of calls; a positive count computes
    them that many at a time, each chunk's down projection written into its rows of the output,
    so that at most [chunk_tokens, N] of the intermediate is allocated at once. Results do not
    depend on chunking beyond the kernels' own choice per token count (each rounds once).
    """
    if not isinstance(packed, ops.PackedGateUp):
        raise TypeError("epifuse.mlp: `packed` must be a PackedGateUp from epifuse.pack_gate_up, "
                        f"not {type(packed).__name__}")
    if chunk_tokens is not None and (isinstance(chunk_tokens, bool) or not isinstance(chunk_tokens, int)
                                     or chunk_tokens < 1):
        raise ValueError(f"epifuse.mlp: chunk_tokens must be a positive int or None, not {chunk_tokens!r}")
    if torch.is_grad_enabled() and any(t is not None and t.requires_grad
                                       for t in (x, packed.weight, packed.bias, down_weight, down_bias)):
        raise RuntimeError("epifuse.mlp is inference only and an input requires grad; call it under "
                           "torch.no_grad() or torch.inference_mode()")
    if chunk_tokens is None or math.prod(x.shape[:-1]) <= chunk_tokens:
        return F.linear(ops.gated_mlp(x, packed, activation, limit, scale), down_weight, down_bias)
    return torch.ops.epifuse.gated_mlp_down_chunked(x, packed.weight, packed.bias, packed.layout, down_weight,
                                                    down_bias, activation, limit, scale, chunk_tokens)

"""The unfused baseline's second kernel, as Liger and Unsloth write it: out = act(h[:, :N]) ⊙ h[:, N:]
over a GEMM's [M, 2N] product (gate columns first), in fp32, one rounding to the output."""
import torch
import triton
import triton.language as tl

_ACTIVATIONS = {"swiglu": 0, "geglu_tanh": 1}


@triton.jit
def _act_mul_kernel(h_ptr, out_ptr, n, stride_h, stride_out, ACTIVATION: tl.constexpr, BLOCK: tl.constexpr):
    row = tl.program_id(0).to(tl.int64)
    cols = tl.program_id(1) * BLOCK + tl.arange(0, BLOCK)
    mask = cols < n
    gate = tl.load(h_ptr + row * stride_h + cols, mask=mask, other=0.0).to(tl.float32)
    up = tl.load(h_ptr + row * stride_h + n + cols, mask=mask, other=0.0).to(tl.float32)
    if ACTIVATION == 0:
        act = gate * tl.sigmoid(gate)
    else:
        inner = 0.7978845608028654 * (gate + 0.044715 * gate * gate * gate)
        act = 0.5 * gate * (1.0 + (2.0 * tl.sigmoid(2.0 * inner) - 1.0))
    tl.store(out_ptr + row * stride_out + cols, (act * up).to(out_ptr.dtype.element_ty), mask=mask)


def act_mul(h: torch.Tensor, activation: str = "swiglu") -> torch.Tensor:
    """h [..., 2N] (gate, then up) → [..., N]."""
    rows = h.reshape(-1, h.shape[-1])
    n = rows.shape[1] // 2
    out = torch.empty((rows.shape[0], n), device=h.device, dtype=h.dtype)
    block = 1024
    _act_mul_kernel[(rows.shape[0], triton.cdiv(n, block))](rows, out, n, rows.stride(0), out.stride(0),
                                                             ACTIVATION=_ACTIVATIONS[activation], BLOCK=block,
                                                             num_warps=4)
    return out.view(*h.shape[:-1], n)

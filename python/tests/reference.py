"""fp64 CPU reference of every op, on the same quantized inputs the kernels read, and the accuracy
rules: near one rounding of the output for a once-rounding kernel, within twice the eager path's
error for a path that rounds its intermediates (STYLE.md)."""
import math
from typing import Optional

import torch

# Bits of significand (with the implicit one) of each output type: half an ulp is 2^(e - bits).
_SIGNIFICAND_BITS = {torch.bfloat16: 8, torch.float16: 11, torch.float32: 24}
_SMALLEST_NORMAL_EXP = {torch.bfloat16: -126, torch.float16: -14, torch.float32: -126}

# The tolerance table (one reason per value).
ROUNDING_SLACK = 1.25  # one round-to-nearest is half an ulp; 1.25 of it leaves room for fp32 ties
ACCUMULATION_ULPS = 4.0  # fp32 accumulation error grows ~sqrt(K) ulps of the |x|·|w| sum; 4 covers its tail
ACTIVATION_SLOPE = 1.2  # the steepest activation slope we use (GELU's peak 1.13, SiLU's 1.10): error passes through
# Paths that round intermediates (testing/tolerances.hpp's baseline rule): relative L2 within twice the eager
# same-precision path's own error, plus noise, under a ceiling; elementwise, per output dtype:
UNFUSED_FACTOR = 2.0  # STYLE.md: "2x the error of the standard same-precision path"
UNFUSED = {  # dtype: (noise, relative L2 ceiling, elementwise ceiling of |out − ref| / (magnitude + rms(ref)))
    torch.bfloat16: (1e-4, 6e-3, 2.0 / 256),  # u = 2^-8 per rounding (≈ u/√3 in L2); ceilings 2u elementwise
    torch.float16: (2e-5, 1e-3, 2.0 / 2048),  # u = 2^-11 per rounding
}


def activation64(name: str, z: torch.Tensor) -> torch.Tensor:
    if name == "identity":
        return z
    if name == "relu":
        return torch.where(z > 0, z, torch.zeros_like(z))
    if name == "gelu_tanh":
        return 0.5 * z * (1 + torch.tanh(math.sqrt(2 / math.pi) * (z + 0.044715 * z**3)))
    if name == "gelu_erf":
        return 0.5 * z * (1 + torch.erf(z / math.sqrt(2)))
    if name == "silu":
        return z * torch.sigmoid(z)
    if name == "sigmoid":
        return torch.sigmoid(z)
    if name == "tanh":
        return torch.tanh(z)
    if name == "hardswish":
        return torch.where(z <= -3, torch.zeros_like(z), torch.where(z >= 3, z, z * (z + 3) / 6))
    if name == "leaky_relu":
        return torch.where(z >= 0, z, 0.01 * z)
    raise ValueError(name)


GATE_ACTIVATION = {"swiglu": "silu", "geglu_tanh": "gelu_tanh", "geglu_erf": "gelu_erf", "reglu": "relu"}


def rows(t: torch.Tensor) -> torch.Tensor:
    return t.detach().reshape(-1, t.shape[-1]).double().cpu()


def gemm64(x, weight, bias=None, activation="identity", alpha=1.0, residual=None, beta=1.0):
    """(reference [M, N] fp64, accumulation-error scale [M, N]) of epifuse.gemm."""
    a, w = rows(x), weight.double().cpu()
    z = alpha * (a @ w.T)
    if bias is not None:
        z = z + bias.double().cpu()
    y = activation64(activation, z)
    if residual is not None:
        y = y + beta * rows(residual)
    scale = abs(alpha) * (a.abs() @ w.abs().T) * math.sqrt(a.shape[1]) * 2.0**-24
    return y, ACCUMULATION_ULPS * ACTIVATION_SLOPE * scale


def gated64(x, gate, up, gate_bias=None, up_bias=None, activation="swiglu", limit=None, scale=1.0):
    """(reference [M, N] fp64, accumulation-error scale [M, N]) of epifuse.gated_mlp."""
    a = rows(x)
    g, u = a @ gate.double().cpu().T, a @ up.double().cpu().T
    if gate_bias is not None:
        g, u = g + gate_bias.double().cpu(), u + up_bias.double().cpu()
    if limit is not None:
        g, u = g.clamp(max=limit), u.clamp(-limit, limit)
    act_g = activation64(GATE_ACTIVATION[activation], g)
    out = scale * act_g * u
    ulp = math.sqrt(a.shape[1]) * 2.0**-24 * ACCUMULATION_ULPS
    err_g = ulp * (a.abs() @ gate.double().cpu().abs().T)
    err_u = ulp * (a.abs() @ up.double().cpu().abs().T)
    return out, abs(scale) * (ACTIVATION_SLOPE * err_g * u.abs() + act_g.abs() * err_u)


def moe64(x, topk_ids, topk_weights, gates, ups, downs, activation="swiglu", add=None):
    """(reference, eager, magnitude), each [T, K] fp64, of epifuse.moe_mlp. The reference rounds
    nothing; the eager path rounds, to x's dtype, what an unfused layer stores: gate, up, act(gate),
    the product, each expert's output, each weighted row, the running sum over j = 0..k-1 and the sum
    with add. magnitude: Σ_j |w·expert row| (+ |add|), what the roundings of the terms are relative
    to where they cancel in y. Pairs whose id is outside [0, E) add nothing."""
    a, ids, w = rows(x), topk_ids.cpu().long(), topk_weights.double().cpu()
    T, k, K = ids.shape[0], ids.shape[1], a.shape[1]

    def rnd(t):
        return t.to(x.dtype).double()

    pair_ref, pair_eager = torch.zeros(T, k, K, dtype=torch.float64), torch.zeros(T, k, K, dtype=torch.float64)
    act = GATE_ACTIVATION[activation]
    for e, (gate, up, down) in enumerate(zip(gates, ups, downs)):
        t, j = (ids == e).nonzero(as_tuple=True)
        if len(t) == 0:
            continue
        g, u = a[t] @ gate.double().cpu().T, a[t] @ up.double().cpu().T
        d = down.double().cpu()
        pair_ref[t, j] = (activation64(act, g) * u) @ d.T
        pair_eager[t, j] = rnd(rnd(rnd(activation64(act, rnd(g))) * rnd(u)) @ d.T)
    ref = (w[..., None] * pair_ref).sum(1)
    magnitude = (w[..., None] * pair_ref).abs().sum(1)
    eager = torch.zeros(T, K, dtype=torch.float64)
    for j in range(k):
        eager = rnd(eager + rnd(w[:, j, None] * pair_eager[:, j]))
    if add is not None:
        ref, eager, magnitude = ref + rows(add), rnd(eager + rows(add)), magnitude + rows(add).abs()
    return ref, eager, magnitude


def assert_near_unfused(out: torch.Tensor, ref: torch.Tensor, eager: torch.Tensor, what: str,
                        magnitude: Optional[torch.Tensor] = None, elem_factor: float = 2.0) -> None:
    """The rule for paths that round more than once: ‖out − ref‖ / ‖ref‖ within UNFUSED_FACTOR × the
    eager path's own + noise, under the ceiling; every element within elem_factor × the elementwise
    ceiling (2: two or three roundings) of magnitude + rms(ref). magnitude: |ref|, or the path's own
    where its rounded terms cancel (a sum of terms each rounded at its own size)."""
    got = rows(out)
    assert got.shape == ref.shape, f"{what}: shape {tuple(got.shape)} vs reference {tuple(ref.shape)}"
    assert torch.isfinite(got).all(), f"{what}: non-finite values in the output"
    norm = ref.norm().item()
    assert norm > 0, f"{what}: the reference is zero; the inputs test nothing"
    noise, l2_ceiling, elem_ceiling = UNFUSED[out.dtype]
    rel_l2, eager_l2 = (got - ref).norm().item() / norm, (eager - ref).norm().item() / norm
    allowed = min(l2_ceiling, UNFUSED_FACTOR * eager_l2 + noise)
    assert rel_l2 <= allowed, \
        f"{what}: relative L2 error {rel_l2:.3e} > allowed {allowed:.3e} (eager path {eager_l2:.3e})"
    scale = ref.abs() if magnitude is None else magnitude
    elem = (got - ref).abs() / (scale + ref.pow(2).mean().sqrt())
    worst = torch.argmax(elem)
    assert elem.flatten()[worst] <= elem_factor * elem_ceiling, (
        f"{what}: element {worst.item()} off by {elem.flatten()[worst].item():.3g} of magnitude + rms(ref), allowed "
        f"{elem_factor * elem_ceiling:.3g} (got {got.flatten()[worst].item():.6g}, reference "
        f"{ref.flatten()[worst].item():.6g})")


def half_ulp(ref: torch.Tensor, dtype: torch.dtype) -> torch.Tensor:
    bits, min_exp = _SIGNIFICAND_BITS[dtype], _SMALLEST_NORMAL_EXP[dtype]
    exponent = torch.floor(torch.log2(ref.abs().clamp(min=2.0**min_exp)))
    return torch.pow(2.0, exponent - bits + 1) / 2


def assert_rounded_once(out: torch.Tensor, ref: torch.Tensor, accumulation: torch.Tensor, what: str) -> None:
    """|out − ref| ≤ 1.25 · half an ulp of ref in out's type + the fp32 accumulation bound, everywhere."""
    got = rows(out)
    assert got.shape == ref.shape, f"{what}: shape {tuple(got.shape)} vs reference {tuple(ref.shape)}"
    assert torch.isfinite(got).all(), f"{what}: non-finite values in the output"
    bound = ROUNDING_SLACK * half_ulp(ref, out.dtype) + accumulation
    err = (got - ref).abs()
    worst = torch.argmax(err / bound)
    ratio = (err / bound).flatten()[worst].item()
    assert ratio <= 1.0, (f"{what}: error {err.flatten()[worst].item():.3g} is {ratio:.2f}x the bound at flat index "
                          f"{worst.item()} (got {got.flatten()[worst].item():.6g}, reference {ref.flatten()[worst].item():.6g})")


def random_matrix(shape, dtype, generator, scale=1.0):
    """Normal entries · scale, quantized to dtype (the kernel and the reference read the same values)."""
    return (torch.randn(shape, generator=generator, dtype=torch.float64) * scale).to(dtype)

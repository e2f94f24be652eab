"""Correctness before time: every timed implementation's output against an fp64 reference (on the
GPU; the same quantized operands), by relative L2 error measured against the error of the
reference itself rounded once to the output type. A kernel that rounds once gets 1.25x that (the
STYLE.md rule); a path with r roundings gets r times it."""
import torch

ONCE_SLACK = 1.25


def rel_l2(out: torch.Tensor, ref: torch.Tensor) -> float:
    return ((out.double() - ref).norm() / ref.norm().clamp(min=1e-300)).item()


def check(out: torch.Tensor, ref: torch.Tensor, roundings: int) -> dict:
    """{"check": "pass"|"fail", "rel_l2": …, "rel_l2_bound": …}."""
    once = rel_l2(ref.to(out.dtype), ref)
    bound = roundings * ONCE_SLACK * once + 1e-6
    err = rel_l2(out, ref)
    ok = bool(torch.isfinite(out).all()) and err <= bound
    return {"check": "pass" if ok else "fail", "rel_l2": err, "rel_l2_bound": bound}

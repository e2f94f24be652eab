"""epifuse.patch(model): the gated MLPs of Hugging Face models run epifuse's fused gate/up kernel,
and their MoE blocks' routed experts epifuse.moe_mlp.

Recognised by structure, not by class, so the families share one path:
- `gate_proj`, `up_proj`, `down_proj` Linears and `act_fn` (Llama, Mistral, Qwen2, Qwen3 dense,
  Gemma, Gemma-2);
- `gate_up_proj` (gate rows first) and `down_proj` Linears and `activation_fn` (Phi-3).
Each recognised MLP is replaced in its parent by an epifuse.nn.GatedMLP holding the packed gate/up
weight and the original down_proj; the original gate/up storage is released (no doubled weight
memory). Routed experts (a transformers `*Experts` module: `gate_up_proj` [E, 2N, K], `down_proj`
[E, K, N], `act_fn`; Mixtral, Qwen2-MoE, DeepSeek-V3) are replaced by an epifuse.moe.MoeExperts
over the same parameters, gate/up packed in place (moe.py). unpatch(model) unpacks them back into
the original modules. Nothing else is touched.
"""
from dataclasses import dataclass, field
from typing import List, Optional, Tuple

import torch

from epifuse import moe, ops
from epifuse.nn import GatedMLP

# Activation modules by class name → the gated variant that applies them to the gate.
_GATE_ACTIVATIONS = {
    "SiLU": "swiglu",
    "SiLUActivation": "swiglu",
    "ReLU": "reglu",
    "PytorchGELUTanh": "geglu_tanh",
    "GELUTanh": "geglu_tanh",
    "NewGELUActivation": "geglu_tanh",
    "FastGELUActivation": "geglu_tanh",
    "GELUActivation": "geglu_erf",
}


@dataclass
class PatchReport:
    """What patch() did: (module path, MLP class, gated activation) for each patched MLP, and
    (module path, MLP class, reason) for each gated-looking MLP it left alone."""
    patched: List[Tuple[str, str, str]] = field(default_factory=list)
    skipped: List[Tuple[str, str, str]] = field(default_factory=list)

    def __str__(self) -> str:
        lines = [f"epifuse.patch: {len(self.patched)} MLPs patched, {len(self.skipped)} left alone"]
        lines += [f"  patched {path} ({cls}, {act})" for path, cls, act in self.patched]
        lines += [f"  left alone {path} ({cls}): {why}" for path, cls, why in self.skipped]
        return "\n".join(lines)


def _gated_activation(act: torch.nn.Module) -> Optional[str]:
    name = type(act).__name__
    if name == "GELU":
        return "geglu_tanh" if getattr(act, "approximate", "none") == "tanh" else "geglu_erf"
    return _GATE_ACTIVATIONS.get(name)


def _linears(module: torch.nn.Module):
    """(gate/up source, down_proj, activation module, fused) for a recognised MLP, else None."""
    linear = torch.nn.Linear
    down = getattr(module, "down_proj", None)
    if not isinstance(down, linear):
        return None
    gate, up, act = getattr(module, "gate_proj", None), getattr(module, "up_proj", None), getattr(module, "act_fn", None)
    if isinstance(gate, linear) and isinstance(up, linear) and isinstance(act, torch.nn.Module):
        return (gate, up), down, act, False
    fused, act = getattr(module, "gate_up_proj", None), getattr(module, "activation_fn", None)
    if isinstance(fused, linear) and isinstance(act, torch.nn.Module):
        return fused, down, act, True
    return None


def _why_not(weight: torch.Tensor, activation: Optional[str], act: torch.nn.Module) -> Optional[str]:
    if activation is None:
        return f"activation {type(act).__name__} has no epifuse gated variant"
    if weight.device.type != "cuda":
        return f"weights on {weight.device}; epifuse runs on a CUDA device"
    if weight.dtype not in (torch.bfloat16, torch.float16):
        return f"weights are {weight.dtype}; epifuse's gated kernels take bfloat16 or float16"
    n, k = weight.shape
    if n % 8 or k % 8:
        return f"gate/up weight [{n}, {k}] is not a multiple of 8 in both dimensions"
    return None


def _release(linear: torch.nn.Linear) -> None:
    """Frees a Linear's storage, keeping the module (unpatch refills it)."""
    linear.weight.data = torch.empty(0, device=linear.weight.device, dtype=linear.weight.dtype)
    if linear.bias is not None:
        linear.bias.data = torch.empty(0, device=linear.bias.device, dtype=linear.bias.dtype)


@torch.no_grad()
def patch(model: torch.nn.Module, chunk_tokens: Optional[int] = None) -> PatchReport:
    """Replaces every recognised gated MLP in `model` (in place) and returns what it did.
    chunk_tokens: computes each MLP that many tokens at a time (epifuse.mlp); None, one call."""
    report = PatchReport()
    for path, module in list(model.named_modules()):
        if path and _patch_experts(model, path, module, report):
            continue
        found = _linears(module)
        if found is None or isinstance(module, GatedMLP):
            continue
        if not path:
            report.skipped.append((path, type(module).__name__, "the model itself is the MLP; patch a model that holds it"))
            continue
        source, down, act, fused = found
        activation = _gated_activation(act)
        gate_shape_source = source.weight if fused else source[0].weight
        reason = _why_not(gate_shape_source, activation, act)
        if reason is not None:
            report.skipped.append((path, type(module).__name__, reason))
            continue
        if fused:
            packed = ops.pack_gate_up(gate_up=source.weight, gate_up_bias=source.bias, order="gate_up")
            _release(source)
        else:
            gate, up = source
            packed = ops.pack_gate_up(gate.weight, up.weight, gate.bias, up.bias)
            _release(gate)
            _release(up)
        replacement = GatedMLP.from_packed(packed, down, activation, chunk_tokens=chunk_tokens)
        object.__setattr__(replacement, "_epifuse_original", module)
        model.set_submodule(path, replacement)
        report.patched.append((path, type(module).__name__, activation))
    return report


def _patch_experts(model: torch.nn.Module, path: str, module: torch.nn.Module, report: PatchReport) -> bool:
    """Replaces routed experts epifuse can run; True when `module` was routed experts (patched or not)."""
    found = moe.routed_experts(module)
    if found is None:
        return False
    gate_up, down, act = found
    activation = _gated_activation(act)
    reason = moe.why_not(module, gate_up, down, activation)
    if reason is not None:
        report.skipped.append((path, type(module).__name__, reason))
        return True
    moe.pack_in_place(gate_up)
    replacement = moe.MoeExperts(gate_up, down, activation)
    object.__setattr__(replacement, "_epifuse_original", module)
    model.set_submodule(path, replacement)
    report.patched.append((path, type(module).__name__, activation))
    return True


@torch.no_grad()
def unpatch(model: torch.nn.Module) -> int:
    """Puts back every MLP and routed experts patch() replaced, weights unpacked; returns how many."""
    restored = 0
    for path, module in list(model.named_modules()):
        if isinstance(module, moe.MoeExperts) and getattr(module, "_epifuse_original", None) is not None:
            moe.unpack_in_place(module.gate_up_proj)
            model.set_submodule(path, module._epifuse_original)
            restored += 1
            continue
        original = getattr(module, "_epifuse_original", None) if isinstance(module, GatedMLP) else None
        if original is None:
            continue
        gate, up, gate_bias, up_bias = ops.unpack_gate_up(module.packed)
        if hasattr(original, "gate_up_proj"):
            _refill(original.gate_up_proj, torch.cat([gate, up]),
                    None if gate_bias is None else torch.cat([gate_bias, up_bias]))
        else:
            _refill(original.gate_proj, gate, gate_bias)
            _refill(original.up_proj, up, up_bias)
        model.set_submodule(path, original)
        restored += 1
    return restored


def _refill(linear: torch.nn.Linear, weight: torch.Tensor, bias: Optional[torch.Tensor]) -> None:
    linear.weight.data = weight.to(linear.weight.dtype)
    if bias is not None:
        linear.bias.data = bias.to(linear.bias.dtype)

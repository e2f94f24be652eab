"""epifuse for PyTorch: fused-epilogue GEMMs and the fused gated MLP on Hopper (sm_90a).

    import epifuse
    y = epifuse.gemm(x, weight, bias, activation="gelu_tanh")
    packed = epifuse.pack_gate_up(gate_weight, up_weight)
    h = epifuse.gated_mlp(x, packed, activation="swiglu")
    y = epifuse.mlp(x, packed, down_weight, chunk_tokens=2048)  # gate/up fused, then down
    y = epifuse.moe_mlp(x, topk_ids, topk_weights, gate_ups, downs)  # MoE experts: [E, 2N, K] packed, [E, K, N]
    report = epifuse.patch(hf_model)     # Llama, Mistral, Qwen2/3, Gemma, Gemma-2, Phi-3 MLPs
"""
from epifuse import _library

_library.load()

from epifuse import _fake  # noqa: E402,F401  (registers the ops' shape functions)
from epifuse import nn  # noqa: E402
from epifuse.ops import (  # noqa: E402
    GATE_UP_BLOCKS8,
    GATED_ACTIVATIONS,
    GEMM_ACTIVATIONS,
    PackedGateUp,
    gated_mlp,
    gemm,
    grouped_gated_mlp,
    grouped_gemm,
    moe_mlp,
    pack_gate_up,
    unpack_gate_up,
)
from epifuse.mlp_op import mlp  # noqa: E402
from epifuse.patch import PatchReport, patch, unpatch  # noqa: E402

__version__ = "0.2.0"
__all__ = ["GATE_UP_BLOCKS8", "GATED_ACTIVATIONS", "GEMM_ACTIVATIONS", "PackedGateUp", "PatchReport", "gated_mlp",
           "gemm", "grouped_gated_mlp", "grouped_gemm", "mlp", "moe_mlp", "nn", "pack_gate_up", "patch",
           "unpack_gate_up", "unpatch"]

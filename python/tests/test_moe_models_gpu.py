"""epifuse.patch on small random-weight Hugging Face MoE models (built from configs, no downloads):
the routed experts run epifuse.moe_mlp, the shared experts and dense layers the fused gated MLP;
logits against an fp32 copy of the same model, memory, unpatch."""
import copy

import pytest
import torch

import epifuse
from conftest import requires_hopper
from test_models_gpu import _COMMON, _record, _rel_l2

try:
    import transformers
except ImportError:
    transformers = None
pytestmark = [requires_hopper, pytest.mark.skipif(transformers is None, reason="transformers is not installed")]

MOE_FAMILIES = {
    "mixtral": ("MixtralConfig", {"intermediate_size": 512, "num_local_experts": 8, "num_experts_per_tok": 2}),
    "qwen2_moe": ("Qwen2MoeConfig", {"moe_intermediate_size": 256, "shared_expert_intermediate_size": 512,
                                     "num_experts": 8, "num_experts_per_tok": 2}),
    "deepseek_v3": ("DeepseekV3Config", {"intermediate_size": 512, "moe_intermediate_size": 128, "n_routed_experts": 16,
                                         "num_experts_per_tok": 4, "n_group": 4, "topk_group": 2, "n_shared_experts": 1,
                                         "first_k_dense_replace": 1, "kv_lora_rank": 64, "q_lora_rank": 128,
                                         "qk_rope_head_dim": 32, "qk_nope_head_dim": 32, "v_head_dim": 64,
                                         "num_key_value_heads": 4}),
}


@pytest.mark.parametrize("family", MOE_FAMILIES)
def test_patched_moe_model_matches_eager(family):
    config_name, extra = MOE_FAMILIES[family]
    config = getattr(transformers, config_name)(**{**_COMMON, **extra})
    torch.manual_seed(1234)
    model = transformers.AutoModelForCausalLM.from_config(config).to("cuda", torch.bfloat16).eval()
    reference = copy.deepcopy(model).float()  # the same bf16 weights, computed in fp32
    ids = torch.randint(3, config.vocab_size, (2, 48), device="cuda")
    experts = [name for name, m in model.named_modules() if type(m).__name__.endswith("Experts")]

    with torch.no_grad():
        ref_logits = reference(ids).logits.float()
        eager_logits = model(ids).logits.float()
        before = torch.cuda.memory_allocated()
        report = epifuse.patch(model)
        after = torch.cuda.memory_allocated()
        patched_logits = model(ids).logits.float()

    assert experts and sorted(p for p, _, _ in report.patched if p in experts) == sorted(experts), str(report)
    assert not report.skipped, str(report)
    assert after <= before + 1024**2, f"patch grew allocated memory by {(after - before) / 2**20:.1f} MiB"
    eager_err, patched_err = _rel_l2(eager_logits, ref_logits), _rel_l2(patched_logits, ref_logits)
    # As for the dense families: at most twice the error of the standard same-precision path.
    assert patched_err <= 2 * eager_err + 1e-6, f"{family}: patched {patched_err:.3g} vs eager {eager_err:.3g}"

    with torch.no_grad():
        assert epifuse.unpatch(model) == len(report.patched)
        restored_logits = model(ids).logits.float()
    assert torch.equal(restored_logits, eager_logits), "unpatch did not restore the original weights"
    _record({"test": "moe_model_patch", "family": family, "patched": len(report.patched),
             "routed_experts_patched": len(experts), "logits_rel_l2_eager": eager_err,
             "logits_rel_l2_epifuse": patched_err, "patch_memory_delta_bytes": after - before})

"""A Llama-3-8B-shaped Hugging Face model (random bf16 weights, 32 layers, sdpa attention) as a
user runs it: prefill, and decode steps under CUDA graphs with a static KV cache, for eager,
epifuse-patched eager, torch.compile of the unpatched model and torch.compile of the patched one.

Two models with the same weights stay resident (one patched), so the four are timed interleaved.
peak_mem_mb: the model's own weights plus the most memory the call allocated beyond what was
resident before it.
"""
import copy
import time
from typing import Dict, List

import torch
import transformers
from transformers import StaticCache

import epifuse
from harness import Timing, time_interleaved

LLAMA3_8B = dict(hidden_size=4096, intermediate_size=14336, num_hidden_layers=32, num_attention_heads=32,
                 num_key_value_heads=8, vocab_size=128256, max_position_embeddings=8192, rope_theta=500000.0,
                 rms_norm_eps=1e-5, pad_token_id=0, bos_token_id=1, eos_token_id=2)
PREFILL_TOKENS = [1024, 4096]
DECODE_BATCHES = [1, 16, 64]
DECODE_CONTEXT = 512


def _models():
    config = transformers.LlamaConfig(**LLAMA3_8B)
    config._attn_implementation = "sdpa"
    torch.manual_seed(0)
    with torch.device("cuda"):
        eager = transformers.AutoModelForCausalLM.from_config(config, dtype=torch.bfloat16).eval()
    patched = copy.deepcopy(eager)
    report = epifuse.patch(patched)
    print(report, flush=True)
    return eager, patched


def _weight_bytes(model) -> int:
    return sum(t.numel() * t.element_size() for t in list(model.parameters()) + list(model.buffers()))


def _peak_mb(call, weights: int) -> float:
    torch.cuda.synchronize()
    torch.cuda.reset_peak_memory_stats()
    base = torch.cuda.memory_allocated()
    out = call()
    torch.cuda.synchronize()
    extra = torch.cuda.max_memory_allocated() - base
    del out
    return (weights + extra) / 2**20


def _rows(phase, times: Dict[str, Timing], peaks, checks, tokens, batch, compile_mode) -> List[dict]:
    rows = []
    for impl, t in times.items():
        rows.append({"op": "model", "impl": impl, "phase": phase, "tokens": tokens, "batch": batch,
                     "model": "llama3-8b-shape", "median_ms": t.median_us / 1e3, "p10_ms": t.p10_us / 1e3,
                     "p90_ms": t.p90_us / 1e3, "samples": t.samples, "peak_mem_mb": peaks[impl], **checks[impl],
                     "compile_mode": compile_mode if "compile" in impl else None,
                     "vs_eager": times["eager"].median_us / t.median_us,
                     "vs_torch_compile": (times["torch_compile"].median_us / t.median_us
                                          if "torch_compile" in times else None)})
    return rows


def _rel_l2(a: torch.Tensor, b: torch.Tensor) -> float:
    return ((a.double() - b.double()).norm() / b.double().norm()).item()


def _prefill(eager, patched, compiled_eager, compiled_patched, weights, compile_mode) -> List[dict]:
    reference = copy.deepcopy(eager).float()  # the same bf16 weights, computed in fp32
    rows = []
    for tokens in PREFILL_TOKENS:
        ids = torch.randint(3, LLAMA3_8B["vocab_size"], (1, tokens), device="cuda")
        calls = {
            "eager": lambda: eager(ids, use_cache=False).logits,
            "epifuse": lambda: patched(ids, use_cache=False).logits,
            "torch_compile": lambda: compiled_eager(ids, use_cache=False).logits,
            "epifuse+torch_compile": lambda: compiled_patched(ids, use_cache=False).logits,
        }
        ref = reference(ids, use_cache=False).logits
        errors = {name: _rel_l2(call(), ref) for name, call in calls.items()}
        # STYLE.md's rule for paths with other roundings around them: within twice the error of the
        # standard same-precision path (eager bf16) against fp32.
        checks = {name: {"logits_rel_l2_vs_fp32": err,
                         "check": "pass" if err <= 2 * errors["eager"] + 1e-6 else "fail"}
                  for name, err in errors.items()}
        del ref
        peaks = {name: _peak_mb(call, weights) for name, call in calls.items()}
        times = time_interleaved({name: (lambda i, c=call: c()) for name, call in calls.items()}, rounds=30, warmup=2)
        rows += _rows("prefill", times, peaks, checks, tokens, 1, compile_mode)
        print(f"prefill {tokens}: " + ", ".join(f"{n} {t.median_us / 1e3:.2f} ms ({peaks[n]:.0f} MiB, "
                                                 f"rel_l2 {errors[n]:.2e})" for n, t in times.items()), flush=True)
    del reference
    return rows


def _graphed_decode(model, prompt: torch.Tensor, token: torch.Tensor):
    """One decode step at position DECODE_CONTEXT of a static cache, captured as a CUDA graph.
    Returns what the graph reads and writes, which must stay alive while it is replayed."""
    cache = StaticCache(config=model.config, max_cache_len=DECODE_CONTEXT + 16)
    model(prompt, past_key_values=cache, use_cache=True)
    # Each layer advances its cache length on the device at every step; the graph rewinds them
    # first, so that every replay is the same step at position DECODE_CONTEXT.
    lengths = [layer.cumulative_length for layer in cache.layers]
    start = [torch.full_like(length, DECODE_CONTEXT) for length in lengths]

    def step():
        torch._foreach_copy_(lengths, start)
        return model(token, past_key_values=cache, use_cache=True).logits

    side = torch.cuda.Stream()
    side.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(side):
        for _ in range(3):
            step()
    torch.cuda.current_stream().wait_stream(side)
    graph = torch.cuda.CUDAGraph()
    with torch.cuda.graph(graph):
        logits = step()
    return graph, logits, (cache, token, start)


def _decode(models, weights, compile_mode, budget_s: float) -> List[dict]:
    rows = []
    started = time.monotonic()
    for batch in DECODE_BATCHES:
        if time.monotonic() - started > budget_s:
            print(f"decode: stopping before batch {batch}, past the {budget_s:.0f} s budget", flush=True)
            break
        prompt = torch.randint(3, LLAMA3_8B["vocab_size"], (batch, DECODE_CONTEXT), device="cuda")
        token = torch.randint(3, LLAMA3_8B["vocab_size"], (batch, 1), device="cuda")
        graphs = {name: _graphed_decode(model, prompt, token) for name, model in models.items()}
        for g, _, _ in graphs.values():
            g.replay()
        torch.cuda.synchronize()
        ref = graphs["eager"][1].float()
        # Decode's accuracy is the prefill's kernels at small M, tested in python/tests; here every
        # output must be finite, and its distance from eager is reported.
        checks = {name: {"logits_rel_l2_vs_eager": _rel_l2(logits, ref),
                         "check": "pass" if bool(torch.isfinite(logits).all()) else "fail"}
                  for name, (_, logits, _) in graphs.items()}
        # A replay allocates nothing: decode rows carry the weights alone (the static KV cache and
        # the graphs' memory pools are not counted).
        peaks = {name: weights / 2**20 for name in graphs}
        times = time_interleaved({name: (lambda i, g=g: g.replay()) for name, (g, _, _) in graphs.items()},
                                 rounds=100, warmup=5)
        rows += _rows("decode", times, peaks, checks, DECODE_CONTEXT, batch, compile_mode)
        print(f"decode batch {batch}: " + ", ".join(f"{n} {t.median_us / 1e3:.3f} ms" for n, t in times.items()),
              flush=True)
        del graphs
    return rows


def suite_model(phases: List[str], compile_mode: str, decode_compiled: bool = False,
                decode_budget_s: float = 1e9) -> List[dict]:
    eager, patched = _models()
    weights = _weight_bytes(eager)
    rows = []
    with torch.inference_mode():
        if "decode" in phases:
            # Each step captured as a CUDA graph; the compiled models compile on their first
            # steps, so they are optional (--decode-compiled).
            models = {"eager": eager, "epifuse": patched}
            if decode_compiled:
                models["torch_compile"] = torch.compile(eager, mode=compile_mode)
                models["epifuse+torch_compile"] = torch.compile(patched, mode=compile_mode)
            rows += _decode(models, weights, compile_mode, decode_budget_s)
        if "prefill" in phases:
            compiled_eager = torch.compile(eager, mode=compile_mode)
            compiled_patched = torch.compile(patched, mode=compile_mode)
            rows += _prefill(eager, patched, compiled_eager, compiled_patched, weights, compile_mode)
    return rows
